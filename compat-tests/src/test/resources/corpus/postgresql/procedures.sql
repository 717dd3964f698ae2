-- Functions, procedures, CALL and DO, including ones that commit inside.

CREATE TABLE ledger (id serial PRIMARY KEY, amount int)

CREATE FUNCTION add_entry(a int) RETURNS int LANGUAGE sql AS 'INSERT INTO ledger (amount) VALUES (a) RETURNING id'

CREATE FUNCTION total() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT coalesce(sum(amount), 0) FROM ledger $$

CREATE PROCEDURE book(a int) LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ledger (amount) VALUES (a); END $$

CREATE PROCEDURE book_twice(a int) LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ledger (amount) VALUES (a); COMMIT; INSERT INTO ledger (amount) VALUES (a); END $$

CREATE PROCEDURE out_total(INOUT t bigint) LANGUAGE plpgsql AS $$ BEGIN t := (SELECT sum(amount) FROM ledger); END $$

SELECT add_entry(5)

SELECT total()

CALL book(7)

CALL out_total(NULL)

DO $$ BEGIN INSERT INTO ledger (amount) VALUES (11); END $$

DO LANGUAGE plpgsql $$ BEGIN PERFORM add_entry(13); END $$

BEGIN

CALL book(17)

SELECT add_entry(19)

COMMIT

CALL nosuch(1)

CALL book('not a number')

SELECT amount FROM ledger ORDER BY id

ALTER FUNCTION total() RENAME TO ledger_total

CREATE OR REPLACE FUNCTION ledger_total() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM ledger $$

SELECT ledger_total()

DROP FUNCTION add_entry(int)

DROP ROUTINE out_total

-- Last, so that its known difference (a procedure that commits inside fails with 2D000) changes no later outcome.
CALL book_twice(3)
