-- What the session reports about the last statement: ROW_COUNT(), LAST_INSERT_ID(), FOUND_ROWS(), warnings.

CREATE TABLE log (id INT AUTO_INCREMENT PRIMARY KEY, msg VARCHAR(10) NOT NULL, n INT NOT NULL DEFAULT 0) ENGINE=InnoDB

INSERT INTO log (msg) VALUES ('a'), ('b'), ('c')

SELECT LAST_INSERT_ID()

INSERT INTO log (msg) VALUES ('d')

SELECT LAST_INSERT_ID(), @@last_insert_id, @@identity

INSERT INTO log (id, msg) VALUES (LAST_INSERT_ID(100), 'e')

SELECT LAST_INSERT_ID()

SELECT SQL_CALC_FOUND_ROWS id FROM log ORDER BY id LIMIT 2

SELECT FOUND_ROWS()

SELECT id FROM log WHERE id > 2 ORDER BY id

SELECT FOUND_ROWS()

START TRANSACTION

UPDATE log SET n = n + 1 WHERE id < 100

SELECT ROW_COUNT()

DELETE FROM log WHERE msg = 'e'

SELECT ROW_COUNT()

INSERT INTO log (msg) VALUES ('f'), ('g')

SELECT ROW_COUNT(), LAST_INSERT_ID()

COMMIT

SELECT ROW_COUNT()

INSERT INTO log (msg) VALUES ('waytoolongmessage')

INSERT IGNORE INTO log (msg) VALUES ('waytoolongmessage')

SHOW WARNINGS

SELECT @@warning_count, @@error_count

SET @before = (SELECT COUNT(*) FROM log)

SELECT @before

UPDATE log SET n = n + 1 WHERE id = 1

SELECT ROW_COUNT()

SELECT id, msg, n FROM log ORDER BY id
