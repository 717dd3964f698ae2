ALTER TABLE product ADD COLUMN price INT;
UPDATE product SET price = 10 * id;
CREATE INDEX product_name ON product (name);
