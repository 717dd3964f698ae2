-- Data-modifying WITH: moving rows, chaining RETURNING, writes under a SELECT.

CREATE TABLE orders (id int PRIMARY KEY, status text, amount int)

CREATE TABLE archive (id int, status text, amount int)

INSERT INTO orders SELECT g, CASE WHEN g % 2 = 0 THEN 'done' ELSE 'open' END, g * 10 FROM generate_series(1, 10) g

WITH moved AS (DELETE FROM orders WHERE status = 'done' RETURNING *) INSERT INTO archive SELECT * FROM moved

WITH upd AS (UPDATE orders SET amount = amount + 1 WHERE id < 4 RETURNING id, amount) SELECT * FROM upd ORDER BY id

WITH ins AS (INSERT INTO orders VALUES (20, 'new', 1) RETURNING id) SELECT id FROM ins

WITH a AS (SELECT id FROM orders WHERE amount > 50) UPDATE orders SET status = 'big' WHERE id IN (SELECT id FROM a)

WITH a AS (SELECT max(id) AS m FROM archive) DELETE FROM archive WHERE id = (SELECT m FROM a)

WITH RECURSIVE t(n) AS (VALUES (1) UNION ALL SELECT n + 1 FROM t WHERE n < 3) INSERT INTO archive SELECT n, 'rec', n FROM t

WITH d AS (DELETE FROM archive WHERE status = 'rec' RETURNING 1) SELECT count(*) FROM d

WITH x AS MATERIALIZED (SELECT * FROM orders) SELECT count(*) FROM x

WITH x AS NOT MATERIALIZED (SELECT id FROM orders) SELECT count(*) FROM x

WITH u AS (UPDATE orders SET status = 'u' WHERE id = 1 RETURNING *), d AS (DELETE FROM orders WHERE id = 3 RETURNING *) SELECT (SELECT count(*) FROM u), (SELECT count(*) FROM d)

WITH m AS (MERGE INTO orders o USING (SELECT 30 AS id) s ON o.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'm', 0)) SELECT 1

SELECT id, status, amount FROM orders ORDER BY id

SELECT count(*) FROM archive
