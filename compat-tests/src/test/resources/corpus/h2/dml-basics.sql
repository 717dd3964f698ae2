-- Plain writes and reads in H2's spelling.

CREATE TABLE acct (id INT PRIMARY KEY, owner VARCHAR(20) NOT NULL, balance DECIMAL(12,2) DEFAULT 0, note VARCHAR(100))

INSERT INTO acct VALUES (1, 'ann', 100.00, NULL)

INSERT INTO acct (id, owner, balance) VALUES (2, 'bob', 50), (3, 'cy', 75.5), (4, 'dee', 0)

INSERT INTO acct (id, owner, note) VALUES (5, 'eve', 'it''s quoted')

INSERT INTO acct (id, owner, note) VALUES (6, 'fay', $$dollar ; quoted$$)

INSERT INTO acct (id, owner) SELECT 7, 'gus' FROM DUAL

INSERT INTO acct SET id = 8, owner = 'hal'

UPDATE acct SET balance = balance + 10 WHERE id = 1

UPDATE acct SET balance = balance - 1, note = 'charged' WHERE balance > 60

UPDATE acct SET (balance, note) = (0, 'reset') WHERE id = 4

UPDATE acct SET balance = 1 WHERE id = 999

UPDATE acct SET note = 'limited' WHERE balance = 0 LIMIT 1

DELETE FROM acct WHERE id = 8

DELETE FROM acct WHERE balance = 0 LIMIT 1

DELETE TOP 1 FROM acct WHERE id > 6

SELECT id, owner, balance, note FROM acct ORDER BY id

SELECT COUNT(*), SUM(balance) FROM acct

TABLE acct

VALUES (1, 'a'), (2, 'b')

SELECT * FROM acct WHERE id = 1 FOR UPDATE

-- comment first
UPDATE acct SET note = /* inline ; comment */ 'commented' WHERE id = 3

UPDATE acct SET note = 'two' WHERE id = 1; UPDATE acct SET note = 'statements' WHERE id = 2

SELECT owner FROM acct WHERE note = 'two' // end of line comment

TRUNCATE TABLE acct

SELECT COUNT(*) FROM acct
