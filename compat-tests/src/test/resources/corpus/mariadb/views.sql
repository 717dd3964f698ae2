-- Views with ALGORITHM and CHECK OPTION, written through.

CREATE TABLE emp (id INT PRIMARY KEY, dept VARCHAR(10) NOT NULL, pay INT NOT NULL) ENGINE=InnoDB

INSERT INTO emp VALUES (1, 'ops', 10), (2, 'ops', 20), (3, 'dev', 30)

CREATE VIEW ops AS SELECT id, dept, pay FROM emp WHERE dept = 'ops'

CREATE ALGORITHM=MERGE VIEW ops_checked AS SELECT id, dept, pay FROM emp WHERE dept = 'ops' WITH CHECK OPTION

CREATE ALGORITHM=TEMPTABLE VIEW pay_by_dept AS SELECT dept, SUM(pay) AS total FROM emp GROUP BY dept

CREATE OR REPLACE ALGORITHM=UNDEFINED SQL SECURITY INVOKER VIEW rich AS SELECT id, pay FROM emp WHERE pay > 15 WITH LOCAL CHECK OPTION

CREATE VIEW rich_ops AS SELECT id, pay FROM rich WHERE id < 3 WITH CASCADED CHECK OPTION

INSERT INTO ops VALUES (4, 'dev', 40)

INSERT INTO ops_checked VALUES (5, 'dev', 50)

INSERT INTO ops_checked VALUES (5, 'ops', 50)

UPDATE ops_checked SET dept = 'dev' WHERE id = 1

UPDATE ops SET pay = pay + 1

UPDATE rich SET pay = 1 WHERE id = 2

UPDATE rich SET pay = 99 WHERE id = 2

INSERT INTO rich_ops (id, pay) VALUES (6, 5)

DELETE FROM ops WHERE id = 5

UPDATE pay_by_dept SET total = 0

SELECT dept, total FROM pay_by_dept ORDER BY dept

SELECT id, dept, pay FROM emp ORDER BY id

ALTER ALGORITHM=MERGE VIEW ops AS SELECT id, dept, pay FROM emp WHERE dept IN ('ops', 'dev')

SELECT COUNT(*) FROM ops

DROP VIEW IF EXISTS rich_ops, rich

DROP VIEW nosuchview

SHOW CREATE VIEW ops_checked
