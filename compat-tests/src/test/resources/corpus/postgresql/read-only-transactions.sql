-- READ ONLY transactions: reads pass, writes to temporary tables are allowed, writes to shared tables fail.

CREATE TABLE ro (id int PRIMARY KEY, v text)

INSERT INTO ro VALUES (1, 'a')

CREATE TEMP TABLE ro_tmp (id int, v text)

BEGIN READ ONLY

SELECT * FROM ro

INSERT INTO ro_tmp VALUES (1, 'allowed')

UPDATE ro_tmp SET v = 'still allowed'

DELETE FROM ro_tmp WHERE id = 2

SELECT * FROM ro_tmp

COMMIT

START TRANSACTION READ ONLY

INSERT INTO ro VALUES (2, 'refused')

ROLLBACK

BEGIN

SET TRANSACTION READ ONLY

INSERT INTO ro_tmp SELECT id, v FROM ro

SELECT count(*) FROM ro_tmp

UPDATE ro SET v = 'refused'

ROLLBACK

SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY

INSERT INTO ro_tmp VALUES (3, 'autocommit read only')

DELETE FROM ro

SET default_transaction_read_only = off

BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY

PREPARE ro_upd AS UPDATE ro SET v = 'prepared'

EXECUTE ro_upd

ROLLBACK

SELECT * FROM ro ORDER BY id

SELECT count(*) FROM ro_tmp
