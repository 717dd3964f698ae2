-- Arrays and composite columns: subscripts and field selections in targets, which a reprinting rewriter lost.

CREATE TYPE pair AS (if1 int, if2 int[])

CREATE TABLE arr (id int PRIMARY KEY, f1 int[], f2 text[], f3 pair, f4 pair[])

INSERT INTO arr VALUES (1, '{1,2,3}', ARRAY['a','b'], ROW(1, '{1,2}'), ARRAY[ROW(2, '{3}')::pair])

INSERT INTO arr (id, f1[1], f1[2]) VALUES (2, 7, 8)

INSERT INTO arr (id, f1[1], f1[2]) SELECT 3, 7, 8

INSERT INTO arr (id, f3.if1, f3.if2) VALUES (4, 5, '{6}')

INSERT INTO arr (id, f3.if1, f3.if2) SELECT 5, 9, ARRAY[10]

INSERT INTO arr (id, f4[1].if1, f4[1].if2[1]) VALUES (6, 1, 2)

UPDATE arr SET f1[2] = 20 WHERE id = 1

UPDATE arr SET f1[1:2] = '{11,12}' WHERE id = 2

UPDATE arr SET f3.if1 = 42 WHERE id = 4

UPDATE arr SET f3.if2[2] = 43 WHERE id = 4

UPDATE arr SET f2 = array_append(f2, 'c') WHERE id = 1

UPDATE arr SET f1 = f1 || 4 WHERE id = 1

UPDATE arr SET f4[1].if1 = 99 WHERE id = 6

SELECT id, f1, f2, f3, f4 FROM arr ORDER BY id

SELECT id, f1[1], (f3).if1, (f3).if2[1] FROM arr ORDER BY id

SELECT id FROM arr WHERE 7 = ANY (f1) ORDER BY id

SELECT unnest(f1) FROM arr WHERE id = 1

DELETE FROM arr WHERE f1 @> '{7}'

SELECT array_agg(id ORDER BY id) FROM arr

UPDATE arr SET f1[0] = 1 WHERE id = 1

UPDATE arr SET f3.nosuch = 1 WHERE id = 1
