-- Writes under sql_mode variants a session sets.

CREATE TABLE m (id INT PRIMARY KEY, s VARCHAR(5), n TINYINT, d DATE) ENGINE=InnoDB

SET SESSION sql_mode = 'STRICT_TRANS_TABLES'

INSERT INTO m VALUES (1, 'toolong', 1, '2024-01-01')

INSERT INTO m VALUES (1, 'ok', 300, '2024-01-01')

INSERT INTO m VALUES (1, 'ok', 1, '2024-02-30')

SET SESSION sql_mode = ''

INSERT INTO m VALUES (2, 'toolong', 300, '2024-02-30')

SHOW WARNINGS

SELECT id, s, n, d FROM m ORDER BY id

SET sql_mode = 'ANSI_QUOTES'

INSERT INTO "m" ("id", "s") VALUES (3, 'ansi')

UPDATE m SET "s" = 'q' WHERE "id" = 3

SET sql_mode = 'PIPES_AS_CONCAT'

UPDATE m SET s = 'a' || 'b' WHERE id = 3

SELECT s FROM m WHERE id = 3

SET sql_mode = 'ANSI'

INSERT INTO m (id, s) VALUES (4, 'x' || 'y')

SET sql_mode = 'TRADITIONAL'

INSERT INTO m (id, n) VALUES (5, 1000)

UPDATE m SET n = n / 0 WHERE id = 2

SET sql_mode = 'NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO'

INSERT INTO m (id, d) VALUES (6, '0000-00-00')

SET sql_mode = 'NO_BACKSLASH_ESCAPES'

INSERT INTO m (id, s) VALUES (7, 'a\b')

SET sql_mode = DEFAULT

SET STATEMENT sql_mode = '' FOR INSERT INTO m (id, s) VALUES (8, 'toolong')

SET SESSION sql_mode = 'ORACLE'

INSERT INTO m (id, s) VALUES (9, 'ora')

SET SESSION sql_mode = DEFAULT

SELECT @@sql_mode

SELECT id, s, n, d FROM m ORDER BY id
