-- Views, updatable views, and views with INSTEAD OF triggers.

CREATE TABLE base (id int PRIMARY KEY, val text, hidden boolean DEFAULT false)

INSERT INTO base VALUES (1, 'a', false), (2, 'b', true)

CREATE VIEW visible AS SELECT id, val FROM base WHERE NOT hidden

INSERT INTO visible VALUES (3, 'c')

UPDATE visible SET val = 'A' WHERE id = 1

DELETE FROM visible WHERE id = 3

CREATE VIEW checked AS SELECT id, val, hidden FROM base WHERE id < 10 WITH CHECK OPTION

INSERT INTO checked VALUES (20, 'x', false)

INSERT INTO checked VALUES (5, 'x', false)

CREATE VIEW joined AS SELECT b1.id, b2.val FROM base b1 JOIN base b2 ON b1.id = b2.id

CREATE FUNCTION joined_ins() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO base VALUES (NEW.id, NEW.val); RETURN NEW; END $$

CREATE TRIGGER joined_ins INSTEAD OF INSERT ON joined FOR EACH ROW EXECUTE FUNCTION joined_ins()

INSERT INTO joined VALUES (6, 'via trigger')

UPDATE joined SET val = 'no trigger for update' WHERE id = 6

SELECT * FROM base ORDER BY id

CREATE OR REPLACE VIEW visible AS SELECT id, val, 1 AS one FROM base WHERE NOT hidden

CREATE MATERIALIZED VIEW mv AS SELECT count(*) AS n FROM base

REFRESH MATERIALIZED VIEW mv

SELECT n FROM mv

CREATE RECURSIVE VIEW nums (n) AS VALUES (1) UNION ALL SELECT n + 1 FROM nums WHERE n < 5

SELECT * FROM nums

ALTER VIEW visible RENAME TO shown

DROP TRIGGER joined_ins ON joined

DROP VIEW shown

DROP MATERIALIZED VIEW mv
