-- ON DUPLICATE KEY UPDATE, REPLACE, INSERT IGNORE and the warnings they leave.

CREATE TABLE stock (sku VARCHAR(10) PRIMARY KEY, qty INT NOT NULL DEFAULT 0, seen INT NOT NULL DEFAULT 1, UNIQUE KEY uq_qty_seen (qty, seen)) ENGINE=InnoDB

INSERT INTO stock (sku, qty) VALUES ('a', 1), ('b', 2)

INSERT INTO stock (sku, qty) VALUES ('a', 5) ON DUPLICATE KEY UPDATE qty = qty + VALUES(qty), seen = seen + 1

INSERT INTO stock (sku, qty) VALUES ('a', 5), ('c', 3) ON DUPLICATE KEY UPDATE qty = VALUE(qty)

INSERT INTO stock (sku, qty) VALUES ('b', 2) ON DUPLICATE KEY UPDATE qty = qty

INSERT INTO stock SET sku = 'd', qty = 7 ON DUPLICATE KEY UPDATE seen = seen + 1

INSERT INTO stock (sku, qty) SELECT CONCAT(sku, 'x'), qty FROM stock WHERE sku IN ('a', 'b') ON DUPLICATE KEY UPDATE seen = 9

SELECT ROW_COUNT()

SELECT sku, qty, seen FROM stock ORDER BY sku

REPLACE INTO stock (sku, qty) VALUES ('a', 100)

REPLACE INTO stock VALUES ('e', 8, 1), ('f', 9, 1)

REPLACE stock SET sku = 'g', qty = 11

REPLACE INTO stock (sku, qty) SELECT 'h', 12 FROM DUAL

SELECT ROW_COUNT()

INSERT IGNORE INTO stock (sku, qty) VALUES ('a', 1), ('z', 13)

SHOW WARNINGS

SELECT @@warning_count

INSERT IGNORE INTO stock (sku, qty) VALUES ('z', 14)

SHOW COUNT(*) WARNINGS

UPDATE IGNORE stock SET sku = 'a' WHERE sku = 'b'

SHOW WARNINGS

INSERT INTO stock (sku, qty) VALUES ('a', 1)

SHOW ERRORS

DELETE IGNORE FROM stock WHERE sku = 'nothing'

INSERT IGNORE INTO stock (sku, qty) VALUES ('toolongforthecolumn', 1)

SHOW WARNINGS

SELECT sku, qty, seen FROM stock ORDER BY sku
