-- Statements the server refuses: the fenced driver must pass its own error through.

CREATE TABLE r (id INT PRIMARY KEY, v INT NOT NULL, UNIQUE KEY uq_v (v)) ENGINE=InnoDB

INSERT INTO r VALUES (1, 1)

INSERT INTO r VALUES (1, 2)

INSERT INTO r VALUES (2, 1)

INSERT INTO r (id) VALUES (3)

INSERT INTO r VALUES (4, NULL)

UPDATE r SET v = 'abc' WHERE id = 1

UPDATE nosuch SET v = 1

DELETE FROM nosuch

INSERT INTO r (nosuchcol) VALUES (1)

UPDATE r SET nosuchcol = 1

SELECT * FROM nosuch

SELECT nosuchcol FROM r

INSERT INTO r VALUES (5, 5)

INSERTT INTO r VALUES (6, 6)

UPDATE r SET WHERE id = 1

DELETE FROM r WHERE

CREATE TABLE r (id INT)

DROP TABLE nosuch

ALTER TABLE r ADD COLUMN v INT

UPDATE r SET v = v + 1 WHERE id = 1

SELECT id, v FROM r ORDER BY id
