-- Table inheritance and ONLY (UPDATE ONLY and DELETE FROM ONLY could not be parsed).

CREATE TABLE cities (name text, population int)

CREATE TABLE capitals (state char(2)) INHERITS (cities)

INSERT INTO cities VALUES ('Springfield', 100), ('Shelbyville', 80)

INSERT INTO capitals VALUES ('Sacramento', 500, 'CA'), ('Albany', 300, 'NY')

SELECT name FROM cities ORDER BY name

SELECT name FROM ONLY cities ORDER BY name

UPDATE cities SET population = population + 1 WHERE name LIKE 'S%'

UPDATE ONLY cities SET population = 0 WHERE name = 'Springfield'

UPDATE ONLY cities SET population = 1 WHERE name = 'Sacramento'

DELETE FROM ONLY cities WHERE name = 'Albany'

DELETE FROM ONLY cities WHERE name = 'Shelbyville'

DELETE FROM cities WHERE name = 'Albany'

SELECT name, population, tableoid::regclass::text FROM cities ORDER BY name

UPDATE cities* SET population = 7 WHERE name = 'Sacramento'

SELECT * FROM capitals ORDER BY name

ALTER TABLE capitals NO INHERIT cities

SELECT count(*) FROM cities

ALTER TABLE capitals INHERIT cities

TRUNCATE ONLY cities

SELECT count(*) FROM cities

TRUNCATE cities
