-- Temporary tables of the session: created, written, shadowing a real table, SELECT INTO TEMP, pg_temp.

CREATE TABLE shared (id int PRIMARY KEY, v text)

INSERT INTO shared VALUES (1, 'real')

CREATE TEMP TABLE scratch (id int, v text)

INSERT INTO scratch VALUES (1, 'tmp'), (2, 'tmp')

UPDATE scratch SET v = 'changed' WHERE id = 1

DELETE FROM scratch WHERE id = 2

SELECT * FROM scratch ORDER BY id

CREATE TEMPORARY TABLE shared (id int, v text)

INSERT INTO shared VALUES (2, 'shadow')

SELECT count(*) FROM shared

INSERT INTO pg_temp.shared VALUES (3, 'explicit temp')

UPDATE pg_temp.shared SET v = 'x'

SELECT id, v FROM shared ORDER BY id

DROP TABLE shared

SELECT id, v FROM shared ORDER BY id

SELECT * INTO TEMP snap FROM shared

SELECT * INTO TEMPORARY TABLE snap2 FROM shared WHERE id = 1

SELECT count(*) FROM snap

CREATE TEMP TABLE ctas AS SELECT id, v FROM shared

CREATE TEMP TABLE oncommit (id int) ON COMMIT DELETE ROWS

INSERT INTO oncommit VALUES (1)

SELECT count(*) FROM oncommit

CREATE TEMP TABLE dropme (id int) ON COMMIT DROP

CREATE LOCAL TEMP TABLE loc (id int)

INSERT INTO loc SELECT id FROM shared

TRUNCATE loc

INSERT INTO scratch SELECT id, v FROM shared

SELECT count(*) FROM scratch

DROP TABLE scratch, snap, snap2, ctas
