-- Plain inserts, updates, deletes and reads of the kind every application sends.

CREATE TABLE acct (id int PRIMARY KEY, owner text NOT NULL, balance numeric(12,2) DEFAULT 0, note text)

INSERT INTO acct VALUES (1, 'ann', 100.00, NULL)

INSERT INTO acct (id, owner, balance) VALUES (2, 'bob', 50), (3, 'cy', 75.5), (4, 'dee', 0)

INSERT INTO acct (id, owner) VALUES (5, 'eve')

INSERT INTO acct (id, owner, note) VALUES (6, 'fay', E'it\'s a note')

INSERT INTO acct (id, owner, note) VALUES (7, 'gus', 'it''s quoted'), (8, 'hal', $$dollar 'quoted'$$)

INSERT INTO acct (id, owner, note) VALUES (9, 'ivy', $tag$ with ; semicolon $tag$)

INSERT INTO acct (id, owner, balance) SELECT 10, 'jon', balance * 2 FROM acct WHERE id = 1

INSERT INTO acct DEFAULT VALUES

UPDATE acct SET balance = balance + 10 WHERE id = 1

UPDATE acct SET balance = balance - 1, note = 'charged' WHERE balance > 60

UPDATE acct a SET note = 'peer of ' || b.owner FROM acct b WHERE b.id = a.id + 1 AND a.id < 3

UPDATE acct SET (balance, note) = (0, 'reset') WHERE id = 4

UPDATE acct SET (balance, note) = (SELECT balance, owner FROM acct WHERE id = 2) WHERE id = 5

UPDATE acct SET balance = 1 WHERE id = 999

DELETE FROM acct WHERE id = 9

DELETE FROM acct a USING acct b WHERE a.id = 8 AND b.id = 7

SELECT id, owner, balance, note FROM acct ORDER BY id

SELECT count(*), sum(balance) FROM acct

SELECT owner FROM acct WHERE note LIKE '%quoted%' ORDER BY 1

-- comment first
UPDATE acct SET note = /* inline ; comment */ 'commented' WHERE id = 3

UPDATE acct SET note = 'two' WHERE id = 1; UPDATE acct SET note = 'statements' WHERE id = 2

SELECT 1; SELECT 2

VALUES (1, 'a'), (2, 'b')

TABLE acct

SELECT * FROM acct WHERE id = 1 FOR UPDATE

DELETE FROM acct WHERE id > 5

TRUNCATE acct

SELECT count(*) FROM acct
