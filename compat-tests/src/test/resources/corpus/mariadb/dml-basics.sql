-- Plain writes and reads in MariaDB's spelling.

CREATE TABLE acct (id INT PRIMARY KEY, owner VARCHAR(20) NOT NULL, balance DECIMAL(12,2) DEFAULT 0, note VARCHAR(100)) ENGINE=InnoDB

INSERT INTO acct VALUES (1, 'ann', 100.00, NULL)

INSERT INTO acct (id, owner, balance) VALUES (2, 'bob', 50), (3, 'cy', 75.5), (4, 'dee', 0)

INSERT INTO acct (id, owner, note) VALUES (5, 'eve', 'it''s quoted')

INSERT INTO acct (id, owner, note) VALUES (6, 'fay', "double \"quoted\"")

INSERT acct (id, owner) VALUES (7, 'gus')

INSERT INTO acct SET id = 8, owner = 'hal', note = `owner`

INSERT INTO acct (id, owner) SELECT 9, 'ivy' FROM DUAL

INSERT INTO acct (id, owner) VALUE (10, 'jo')

UPDATE acct SET balance = balance + 10 WHERE id = 1

UPDATE acct SET balance = balance - 1, note = 'charged' WHERE balance > 60

UPDATE acct SET balance = 1 WHERE id = 999

UPDATE acct SET note = 'limited' WHERE balance = 0 ORDER BY id DESC LIMIT 1

UPDATE LOW_PRIORITY acct SET note = CONCAT(owner, '!') WHERE id IN (2, 3)

DELETE FROM acct WHERE id = 10

DELETE FROM acct WHERE balance = 0 ORDER BY id LIMIT 1

DELETE QUICK FROM acct WHERE id = 999

SELECT id, owner, balance, note FROM acct ORDER BY id

SELECT owner, balance FROM acct WHERE balance BETWEEN 1 AND 100 ORDER BY balance DESC, id

SELECT COUNT(*), SUM(balance), MAX(id) FROM acct

SELECT id FROM acct WHERE note IS NULL ORDER BY id LIMIT 2 OFFSET 1

SELECT id, owner FROM acct ORDER BY id LIMIT 1, 2

SELECT id, IF(balance > 50, 'rich', 'poor') AS kind FROM acct ORDER BY id

SELECT GROUP_CONCAT(owner ORDER BY owner SEPARATOR '/') FROM acct

# a hash comment before the statement
UPDATE acct SET note = 'hashed' WHERE id = 1

/* a block comment */ DELETE FROM acct WHERE id = 9 -- and a line comment

INSERT INTO acct (id, owner, balance) VALUES (11, 'kim', 1e2), (12, 'lu', -0.5)

UPDATE acct SET balance = DEFAULT WHERE id = 12

DELETE FROM acct

SELECT COUNT(*) FROM acct
