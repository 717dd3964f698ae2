-- Views, Java triggers written as source, and sequences.

CREATE TABLE base (id INT PRIMARY KEY, val VARCHAR(20), hidden BOOLEAN DEFAULT FALSE)

INSERT INTO base VALUES (1, 'a', FALSE), (2, 'b', TRUE)

CREATE VIEW visible AS SELECT id, val FROM base WHERE NOT hidden

SELECT * FROM visible

CREATE OR REPLACE VIEW visible AS SELECT id, val, 1 AS one FROM base WHERE NOT hidden

INSERT INTO visible (id, val) VALUES (3, 'c')

CREATE TABLE audit (id INT)

CREATE TRIGGER base_ins AFTER INSERT ON base FOR EACH ROW AS $$org.h2.api.Trigger create() { return new org.h2.api.Trigger() { public void fire(java.sql.Connection c, Object[] o, Object[] n) throws java.sql.SQLException { c.createStatement().execute("INSERT INTO audit VALUES (" + n[0] + ")"); } }; }$$

INSERT INTO base VALUES (4, 'd', FALSE)

SELECT * FROM audit

DROP TRIGGER base_ins

CREATE SEQUENCE seq1 START WITH 10 INCREMENT BY 5

SELECT NEXT VALUE FOR seq1

INSERT INTO base VALUES (NEXT VALUE FOR seq1, 'seq', FALSE)

ALTER SEQUENCE seq1 RESTART WITH 100

CREATE MATERIALIZED VIEW mv AS SELECT COUNT(*) AS n FROM base

REFRESH MATERIALIZED VIEW mv

DROP VIEW visible

DROP SEQUENCE seq1

SELECT * FROM base ORDER BY id
