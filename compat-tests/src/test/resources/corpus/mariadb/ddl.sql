-- DDL that applications run: CREATE TABLE ... SELECT, TRUNCATE, ALTER, indexes, RENAME, temporary tables.

CREATE TABLE src (id INT PRIMARY KEY, name VARCHAR(20), qty INT) ENGINE=InnoDB

INSERT INTO src VALUES (1, 'one', 1), (2, 'two', 2), (3, 'three', 3)

CREATE TABLE copy1 AS SELECT id, name FROM src WHERE qty > 1

CREATE TABLE copy2 SELECT * FROM src

CREATE TABLE copy3 (extra INT DEFAULT 7) SELECT id, qty FROM src

CREATE TABLE IF NOT EXISTS copy1 AS SELECT 1 AS x

CREATE TABLE copy4 LIKE src

INSERT INTO copy4 SELECT * FROM src WHERE id = 1

CREATE OR REPLACE TABLE copy4 AS SELECT id FROM src

TRUNCATE TABLE copy2

TRUNCATE copy3

ALTER TABLE copy1 ADD COLUMN note VARCHAR(10) DEFAULT 'n'

ALTER TABLE copy1 ADD INDEX idx_name (name), MODIFY name VARCHAR(40)

CREATE INDEX idx_qty ON src (qty)

CREATE UNIQUE INDEX uq_name ON src (name)

DROP INDEX idx_qty ON src

ALTER TABLE src RENAME COLUMN qty TO amount

RENAME TABLE copy1 TO copy1b

RENAME TABLE copy1b TO copy1c, copy4 TO copy4b

CREATE TEMPORARY TABLE scratch (k INT PRIMARY KEY, v INT)

INSERT INTO scratch VALUES (1, 1), (2, 2)

UPDATE scratch SET v = v * 10

SELECT k, v FROM scratch ORDER BY k

CREATE TEMPORARY TABLE scratch2 SELECT id FROM src

DROP TEMPORARY TABLE scratch, scratch2

ALTER TABLE copy3 ENGINE=InnoDB

ANALYZE TABLE src

DROP TABLE IF EXISTS copy2, nosuch

DROP TABLE nosuch

SELECT id, name, amount FROM src ORDER BY id
