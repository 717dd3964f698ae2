-- H2's MERGE INTO ... KEY, the standard MERGE ... USING, and upserts.

CREATE TABLE stock (item VARCHAR(20) PRIMARY KEY, qty INT NOT NULL DEFAULT 0)

CREATE TABLE delivery (item VARCHAR(20), qty INT)

INSERT INTO stock VALUES ('apple', 10), ('pear', 5)

INSERT INTO delivery VALUES ('apple', 3), ('kiwi', 7), ('pear', -5)

MERGE INTO stock KEY (item) VALUES ('apple', 11)

MERGE INTO stock (item, qty) KEY (item) VALUES ('plum', 1)

MERGE INTO stock KEY (item) SELECT item, qty FROM delivery WHERE qty > 5

MERGE INTO stock VALUES ('fig', 2)

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN MATCHED THEN UPDATE SET qty = s.qty + d.qty WHEN NOT MATCHED THEN INSERT VALUES (d.item, d.qty)

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN MATCHED AND s.qty + d.qty <= 0 THEN DELETE

MERGE INTO stock s USING (SELECT 'melon' AS item) d ON s.item = d.item WHEN NOT MATCHED THEN INSERT (item) VALUES (d.item)

MERGE INTO stock s USING (VALUES ('apple', 1)) d(item, qty) ON s.item = d.item WHEN MATCHED THEN UPDATE SET qty = DEFAULT

SELECT * FROM stock ORDER BY item

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN NOT MATCHED THEN UPDATE SET qty = 1

MERGE INTO stock KEY (nosuch) VALUES ('x', 1)

MERGE INTO nosuch s USING delivery d ON s.item = d.item WHEN MATCHED THEN DELETE

SELECT COUNT(*) FROM stock
