-- Declarative partitioning: range, list and hash, with operator classes; routing and moving rows.

CREATE TABLE meas (city int NOT NULL, logdate date NOT NULL, peak int) PARTITION BY RANGE (logdate)

CREATE TABLE meas_2024 PARTITION OF meas FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')

CREATE TABLE meas_2025 PARTITION OF meas FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')

CREATE TABLE meas_default PARTITION OF meas DEFAULT

INSERT INTO meas VALUES (1, '2024-05-01', 10), (2, '2025-02-02', 20), (3, '2030-01-01', 30)

UPDATE meas SET logdate = '2025-06-01' WHERE city = 1

DELETE FROM meas WHERE city = 3

SELECT tableoid::regclass::text, city, logdate FROM meas ORDER BY city

SELECT count(*) FROM ONLY meas

CREATE TABLE lst (k text, v int) PARTITION BY LIST (k)

CREATE TABLE lst_ab PARTITION OF lst FOR VALUES IN ('a', 'b')

INSERT INTO lst VALUES ('a', 1), ('b', 2)

INSERT INTO lst VALUES ('z', 3)

CREATE TABLE hsh (a int, b text) PARTITION BY HASH (a int4_ops)

CREATE TABLE hsh_0 PARTITION OF hsh FOR VALUES WITH (MODULUS 2, REMAINDER 0)

CREATE TABLE hsh_1 PARTITION OF hsh FOR VALUES WITH (MODULUS 2, REMAINDER 1)

INSERT INTO hsh SELECT g, 'v' || g FROM generate_series(1, 20) g

SELECT count(*) FROM hsh_0

CREATE TABLE lst_c (k text, v int)

ALTER TABLE lst ATTACH PARTITION lst_c FOR VALUES IN ('c')

INSERT INTO lst VALUES ('c', 4)

ALTER TABLE lst DETACH PARTITION lst_c

SELECT count(*) FROM lst

CREATE INDEX ON meas (city)

TRUNCATE meas_default

DROP TABLE hsh
