-- Domains: creation, use, violations, and their DDL (DROP DOMAIN could not be parsed).

CREATE DOMAIN posint AS int CHECK (VALUE > 0)

CREATE DOMAIN email AS text CONSTRAINT has_at CHECK (VALUE LIKE '%@%') NOT NULL

CREATE TABLE person (id posint PRIMARY KEY, mail email)

INSERT INTO person VALUES (1, 'a@example.org')

INSERT INTO person VALUES (0, 'b@example.org')

INSERT INTO person VALUES (2, 'no-at-sign')

INSERT INTO person VALUES (3, NULL)

UPDATE person SET mail = 'c@example.org' WHERE id = 1

SELECT id, mail FROM person ORDER BY id

SELECT 5::posint

SELECT (-5)::posint

ALTER DOMAIN posint ADD CONSTRAINT small CHECK (VALUE < 1000)

ALTER DOMAIN email DROP CONSTRAINT has_at

INSERT INTO person VALUES (4, 'still-no-at')

ALTER DOMAIN posint RENAME CONSTRAINT small TO below_thousand

ALTER DOMAIN posint SET DEFAULT 1

COMMENT ON DOMAIN posint IS 'positive integers'

CREATE DOMAIN unused AS varchar(10)

DROP DOMAIN unused

DROP DOMAIN IF EXISTS never_there

DROP DOMAIN posint

DROP DOMAIN posint CASCADE

SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'person' AND table_schema = current_schema() ORDER BY 1
