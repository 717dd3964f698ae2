-- Statements the server rejects: its own SQLState must come back, not the driver's.

CREATE TABLE rj (id int PRIMARY KEY, v text NOT NULL)

INSERT INTO rj VALUES (1, 'a')

INSERT INTO rj VALUES (1, 'duplicate')

INSERT INTO rj VALUES (2, NULL)

INSERT INTO rj VALUES ('x', 'bad int')

INSERT INTO rj (nosuch) VALUES (1)

INSERT INTO nosuch VALUES (1)

INSERT INTO rj VALUES (3)

INSERT INTO rj VALUES (3, 'a', 'too many')

INSERT INTO rj (id, id) VALUES (4, 4)

UPDATE rj SET nosuch = 1

UPDATE rj SET id = id / 0

UPDATE nosuch SET x = 1

DELETE FROM nosuch

DELETE FROM rj WHERE nosuch = 1

INSERT INTO rj VALUE (5, 'typo')

UPDATE rj SET WHERE id = 1

DELETE rj WHERE id = 1

INSERT INTO rj VALUES (6, 'unterminated)

INSERT INTO rj SELECT * FROM rj WHERE

UPDATE rj SET v = 'x' WHERE id = 1 ORDER BY id

DELETE FROM rj LIMIT 1

INSERT INTO rj VALUES (7, 'a') ON CONFLICT (v) DO NOTHING

INSERT INTO rj VALUES (8, 'a') ON CONFLICT DO UPDATE SET v = 'b'

UPDATE rj SET v = 'x' WHERE CURRENT OF nosuch_cursor

MERGE INTO rj USING rj r2 ON rj.id = r2.id WHEN MATCHED THEN INSERT VALUES (1, 'x')

MERGE rj USING (SELECT 1 AS id) s ON rj.id = s.id WHEN MATCHED THEN DELETE

CREATE TABLE rj (id int)

CREATE TABLE bad (id int PRIMARY KEY PRIMARY KEY)

ALTER TABLE rj ADD COLUMN v text

ALTER TABLE rj DROP COLUMN nosuch

DROP TABLE nosuch

CREATE INDEX ON rj (nosuch)

TRUNCATE nosuch

SELECT * FROM nosuch

SELECT 1/0

SELEKT 1

INSERT INTO rj VALUES (9, 'x') RETURNING nosuch

CREATE FUNCTION bad() RETURNS int LANGUAGE nosuchlang AS 'x'

DO $$ BEGIN RAISE EXCEPTION 'from a block' USING ERRCODE = '22012'; END $$

DO $$ BEGIN PERFORM 1/0; END $$

CALL nosuch()

COMMENT ON TABLE nosuch IS 'x'

GRANT SELECT ON nosuch TO PUBLIC

VACUUM nosuch

LOCK TABLE nosuch

SELECT count(*) FROM rj
