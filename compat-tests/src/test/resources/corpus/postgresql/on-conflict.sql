-- INSERT ... ON CONFLICT in its forms, with EXCLUDED, conditions and constraint names.

CREATE TABLE kv (k text PRIMARY KEY, v int, hits int DEFAULT 1)

CREATE UNIQUE INDEX kv_v_partial ON kv (v) WHERE v > 100

INSERT INTO kv (k, v) VALUES ('a', 1) ON CONFLICT DO NOTHING

INSERT INTO kv (k, v) VALUES ('a', 2) ON CONFLICT DO NOTHING

INSERT INTO kv (k, v) VALUES ('a', 3) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, hits = kv.hits + 1

INSERT INTO kv AS t (k, v) VALUES ('a', 4) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v WHERE t.v < 5

INSERT INTO kv AS t (k, v) VALUES ('a', 5) ON CONFLICT (k) DO UPDATE SET v = 0 WHERE t.v < 5

INSERT INTO kv (k, v) VALUES ('b', 1), ('c', 2) ON CONFLICT ON CONSTRAINT kv_pkey DO NOTHING

INSERT INTO kv (k, v) VALUES ('d', 200) ON CONFLICT (v) WHERE v > 100 DO NOTHING

INSERT INTO kv (k, v) VALUES ('e', 200) ON CONFLICT (v) WHERE v > 100 DO UPDATE SET k = 'e'

INSERT INTO kv (k, v) VALUES ('f', 1), ('f', 2) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v

INSERT INTO kv (k, v) VALUES ('g', 7) ON CONFLICT (k) DO UPDATE SET (v, hits) = (EXCLUDED.v, 0) RETURNING k, v, hits

INSERT INTO kv (k, v) SELECT k, v + 1 FROM kv WHERE k IN ('a', 'b') ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v RETURNING k, v

INSERT INTO kv (k, v) VALUES ('h', 1) ON CONFLICT (nosuch) DO NOTHING

INSERT INTO kv (k, v) VALUES ('h', 1) ON CONFLICT (v) DO NOTHING

SELECT * FROM kv ORDER BY k
