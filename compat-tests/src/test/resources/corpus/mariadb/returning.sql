-- INSERT ... RETURNING, REPLACE ... RETURNING, DELETE ... RETURNING (MariaDB 10.5+).

CREATE TABLE item (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL, price INT NOT NULL DEFAULT 0, UNIQUE KEY uq_name (name)) ENGINE=InnoDB

INSERT INTO item (name, price) VALUES ('pen', 2), ('ink', 5) RETURNING id, name

INSERT INTO item (name) VALUES ('pad') RETURNING *

INSERT INTO item (name, price) SELECT 'cap', 3 FROM DUAL RETURNING id, price * 2 AS doubled

INSERT INTO item SET name = 'nib', price = 1 RETURNING name, LENGTH(name)

INSERT IGNORE INTO item (name) VALUES ('pen'), ('rod') RETURNING id, name

REPLACE INTO item (id, name, price) VALUES (1, 'pen', 3) RETURNING id, name, price

REPLACE INTO item (name, price) VALUES ('ink', 6), ('tin', 7) RETURNING name, price

REPLACE item SET name = 'cap', price = 4 RETURNING *

REPLACE INTO item (name, price) SELECT CONCAT(name, '2'), price FROM item WHERE price < 3 RETURNING name

DELETE FROM item WHERE price > 5 RETURNING id, name

DELETE FROM item WHERE name = 'none' RETURNING id

DELETE FROM item WHERE price = 1 ORDER BY id LIMIT 1 RETURNING name

SELECT id, name, price FROM item ORDER BY id

INSERT INTO item (name) VALUES ('pen') RETURNING id

SELECT COUNT(*) FROM item
