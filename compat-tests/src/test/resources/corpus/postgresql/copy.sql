-- COPY to and from server files and programs (the server's superuser), and through the client protocol.

CREATE TABLE cp (id int, name text)

INSERT INTO cp VALUES (1, 'a'), (2, 'b, with comma')

COPY cp TO '/tmp/fencing_compat_cp.csv' WITH (FORMAT csv)

COPY cp FROM '/tmp/fencing_compat_cp.csv' WITH (FORMAT csv)

COPY cp (id, name) FROM PROGRAM 'printf "3,c\n4,d\n"' WITH (FORMAT csv)

COPY (SELECT id FROM cp WHERE id > 2) TO '/tmp/fencing_compat_cp_ids.txt'

COPY cp (id) FROM '/tmp/fencing_compat_cp_ids.txt'

COPY cp FROM '/tmp/fencing_compat_no_such_file.csv'

COPY nosuch FROM '/tmp/fencing_compat_cp.csv'

COPY cp FROM STDIN

COPY cp TO STDOUT

SELECT id, name FROM cp ORDER BY id, name
