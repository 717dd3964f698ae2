-- Multi-table UPDATE and DELETE, comma and JOIN forms, derived tables.

CREATE TABLE t1 (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB

CREATE TABLE t2 (id INT PRIMARY KEY, t1_id INT NOT NULL, w INT NOT NULL) ENGINE=InnoDB

CREATE TABLE t3 (id INT PRIMARY KEY, t2_id INT NOT NULL) ENGINE=InnoDB

INSERT INTO t1 VALUES (1, 10), (2, 20), (3, 30), (4, 40)

INSERT INTO t2 VALUES (1, 1, 100), (2, 1, 200), (3, 2, 300), (4, 3, 400)

INSERT INTO t3 VALUES (1, 1), (2, 2), (3, 3), (4, 4)

UPDATE t1, t2 SET t1.v = t1.v + 1, t2.w = t2.w + 1 WHERE t1.id = t2.t1_id AND t1.id = 1

UPDATE t1 JOIN t2 ON t2.t1_id = t1.id SET t2.w = t1.v WHERE t1.id = 2

UPDATE t1 LEFT JOIN t2 ON t2.t1_id = t1.id SET t1.v = 0 WHERE t2.id IS NULL

UPDATE t1 INNER JOIN (SELECT t1_id, SUM(w) AS total FROM t2 GROUP BY t1_id) s ON s.t1_id = t1.id SET t1.v = s.total

UPDATE IGNORE (SELECT 1 AS one) x, t1 SET t1.v = t1.v + x.one WHERE t1.id = 3

UPDATE t1 SET v = (SELECT MAX(w) FROM t2 WHERE t2.t1_id = t1.id) WHERE id = 2

UPDATE t2 SET w = w - 1 WHERE t1_id IN (SELECT id FROM t1 WHERE v > 100)

DELETE t3 FROM t3 JOIN t2 ON t2.id = t3.t2_id WHERE t2.w > 399

DELETE t2, t3 FROM t2 JOIN t3 ON t3.t2_id = t2.id WHERE t2.id = 3

DELETE FROM t3 USING t3, t2 WHERE t3.t2_id = t2.id AND t2.id = 2

DELETE t2.*, t3.* FROM t2, t3 WHERE t3.t2_id = t2.id AND t2.id = 1

DELETE t1 FROM t1 LEFT JOIN t2 ON t2.t1_id = t1.id WHERE t2.id IS NULL AND t1.id = 4

DELETE FROM t1 WHERE id IN (SELECT t1_id FROM (SELECT t1_id FROM t2) d)

DELETE FROM t1 WHERE v = (SELECT MIN(v) FROM t1)

SELECT t1.id, t1.v, t2.id, t2.w FROM t1 LEFT JOIN t2 ON t2.t1_id = t1.id ORDER BY t1.id, t2.id

SELECT (SELECT COUNT(*) FROM t1), (SELECT COUNT(*) FROM t2), (SELECT COUNT(*) FROM t3)

INSERT INTO t1 (id, v) SELECT id + 10, w FROM t2

INSERT INTO t2 (id, t1_id, w) SELECT t1.id + 100, t1.id, 0 FROM t1 NATURAL JOIN t3 ON DUPLICATE KEY UPDATE w = 1

SELECT COUNT(*), SUM(v) FROM t1
