-- Rules: CREATE RULE with DO ALSO / DO INSTEAD bodies, and what they do to writes.

CREATE TABLE items (id int PRIMARY KEY, name text)

CREATE TABLE items_log (id int, action text)

CREATE RULE items_ins AS ON INSERT TO items DO ALSO INSERT INTO items_log VALUES (NEW.id, 'insert')

CREATE RULE items_del AS ON DELETE TO items DO ALSO INSERT INTO items_log VALUES (OLD.id, 'delete')

INSERT INTO items VALUES (1, 'one'), (2, 'two')

DELETE FROM items WHERE id = 2

SELECT * FROM items_log ORDER BY id, action

CREATE TABLE frozen (id int)

CREATE RULE frozen_no_upd AS ON UPDATE TO frozen DO INSTEAD NOTHING

INSERT INTO frozen VALUES (1)

UPDATE frozen SET id = 2

SELECT * FROM frozen

CREATE OR REPLACE RULE items_del AS ON DELETE TO items DO ALSO (INSERT INTO items_log VALUES (OLD.id, 'gone'); INSERT INTO items_log VALUES (OLD.id, 'really'))

DELETE FROM items WHERE id = 1

SELECT action FROM items_log ORDER BY action

CREATE RULE r_bad AS ON INSERT TO nosuch DO ALSO NOTHING

ALTER RULE frozen_no_upd ON frozen RENAME TO frozen_keep

DROP RULE frozen_keep ON frozen

UPDATE frozen SET id = 3

SELECT * FROM frozen

DROP RULE IF EXISTS nothing_here ON frozen
