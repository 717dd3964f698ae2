-- Statements H2 rejects: its own SQLState must come back.

CREATE TABLE rj (id INT PRIMARY KEY, v VARCHAR(20) NOT NULL)

INSERT INTO rj VALUES (1, 'a')

INSERT INTO rj VALUES (1, 'duplicate')

INSERT INTO rj VALUES (2, NULL)

INSERT INTO rj VALUES ('x', 'bad int')

INSERT INTO rj (nosuch) VALUES (1)

INSERT INTO nosuch VALUES (1)

INSERT INTO rj VALUES (3)

UPDATE rj SET nosuch = 1

UPDATE rj SET id = id / 0

UPDATE nosuch SET x = 1

DELETE FROM nosuch

INSERT INTO rj VALUE (5, 'typo')

UPDATE rj SET WHERE id = 1

INSERT INTO rj VALUES (6, 'unterminated)

INSERT INTO rj SELECT * FROM rj WHERE

MERGE INTO rj USING rj r2 ON rj.id = r2.id WHEN MATCHED THEN INSERT VALUES (1, 'x')

CREATE TABLE rj (id INT)

ALTER TABLE rj ADD COLUMN v VARCHAR(20)

ALTER TABLE rj DROP COLUMN nosuch

DROP TABLE nosuch

CREATE INDEX rj_i ON rj (nosuch)

TRUNCATE TABLE nosuch

SELECT * FROM nosuch

SELECT 1/0

SELEKT 1

CALL nosuch()

SELECT COUNT(*) FROM rj
