-- Server-side PREPARE, EXECUTE and DEALLOCATE as SQL text.

CREATE TABLE pe (id int PRIMARY KEY, v text)

PREPARE pe_ins (int, text) AS INSERT INTO pe VALUES ($1, $2)

EXECUTE pe_ins(1, 'one')

EXECUTE pe_ins(2, 'two')

PREPARE pe_sel AS SELECT v FROM pe WHERE id = $1

EXECUTE pe_sel(1)

PREPARE pe_upd AS UPDATE pe SET v = upper(v) RETURNING id, v

EXECUTE pe_upd

PREPARE pe_del (int) AS DELETE FROM pe WHERE id = $1

EXECUTE pe_del(2)

DEALLOCATE pe_del

EXECUTE pe_del(1)

PREPARE pe_ins (int) AS SELECT 1

PREPARE pe_bad AS UPDATE nosuch SET x = 1

DEALLOCATE ALL

EXECUTE pe_ins(3, 'three')

SELECT * FROM pe ORDER BY id
