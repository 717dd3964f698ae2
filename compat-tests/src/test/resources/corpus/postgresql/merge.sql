-- Every MERGE form of PostgreSQL 15: matched and not matched actions, DEFAULT VALUES, DO NOTHING, conditions.

CREATE TABLE stock (item text PRIMARY KEY, qty int NOT NULL DEFAULT 0)

CREATE TABLE delivery (item text, qty int)

INSERT INTO stock VALUES ('apple', 10), ('pear', 5)

INSERT INTO delivery VALUES ('apple', 3), ('kiwi', 7), ('pear', -5)

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN MATCHED THEN UPDATE SET qty = s.qty + d.qty WHEN NOT MATCHED THEN INSERT VALUES (d.item, d.qty)

SELECT * FROM stock ORDER BY item

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN MATCHED AND s.qty + d.qty <= 0 THEN DELETE WHEN MATCHED THEN UPDATE SET qty = s.qty + d.qty

MERGE INTO stock s USING (SELECT 'plum' AS item) d ON s.item = d.item WHEN NOT MATCHED THEN INSERT (item) VALUES (d.item)

MERGE INTO stock s USING (SELECT 'fig' AS item) d ON s.item = d.item WHEN NOT MATCHED THEN DO NOTHING

MERGE INTO stock s USING (SELECT 'apple' AS item) d ON s.item = d.item WHEN MATCHED THEN DO NOTHING

MERGE INTO delivery d USING (SELECT 1) x ON false WHEN NOT MATCHED THEN INSERT DEFAULT VALUES

MERGE INTO stock AS s USING delivery AS d ON (s.item = d.item) WHEN NOT MATCHED AND d.qty > 0 THEN INSERT (item, qty) VALUES (d.item, d.qty) WHEN MATCHED AND d.qty IS NULL THEN DELETE

MERGE INTO stock s USING stock t ON s.item = t.item WHEN MATCHED THEN UPDATE SET qty = DEFAULT

MERGE INTO ONLY stock s USING (VALUES ('grape', 1)) v(item, qty) ON s.item = v.item WHEN NOT MATCHED THEN INSERT OVERRIDING SYSTEM VALUE VALUES (v.item, v.qty)

WITH src AS (SELECT 'melon' AS item, 4 AS qty) MERGE INTO stock s USING src ON s.item = src.item WHEN NOT MATCHED THEN INSERT VALUES (src.item, src.qty)

SELECT * FROM stock ORDER BY item

SELECT count(*) FROM delivery

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN MATCHED THEN UPDATE SET qty = 0 WHEN MATCHED THEN DELETE

MERGE INTO stock s USING delivery d ON true WHEN MATCHED THEN UPDATE SET qty = 1

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN NOT MATCHED THEN UPDATE SET qty = 1

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN MATCHED THEN INSERT VALUES ('x', 1)

MERGE INTO stock s USING delivery d ON s.item = d.item WHEN MATCHED THEN UPDATE SET qty = 1 RETURNING *

MERGE INTO nosuch s USING delivery d ON s.item = d.item WHEN MATCHED THEN DELETE
