-- RETURNING from every write, with expressions and generated values.

CREATE TABLE tick (id serial PRIMARY KEY, label text, created int GENERATED ALWAYS AS (length(label)) STORED)

INSERT INTO tick (label) VALUES ('one') RETURNING id

INSERT INTO tick (label) VALUES ('two'), ('three') RETURNING id, label, created

INSERT INTO tick (label) VALUES ('four') RETURNING *

INSERT INTO tick (label) SELECT 'copy-' || label FROM tick WHERE id < 3 RETURNING id, upper(label) AS shout

UPDATE tick SET label = label || '!' WHERE id = 1 RETURNING id, label, created

UPDATE tick SET label = 'x' WHERE id = 999 RETURNING id

DELETE FROM tick WHERE id = 2 RETURNING label

DELETE FROM tick WHERE id > 4 RETURNING id, tableoid::regclass::text

INSERT INTO tick (id, label) VALUES (100, 'explicit') RETURNING id

INSERT INTO tick (label, created) VALUES ('bad', 1) RETURNING id

INSERT INTO tick (label) VALUES ('ret') RETURNING nosuch

SELECT id, label, created FROM tick ORDER BY id

SELECT currval('tick_id_seq') > 0
