INSERT INTO product (id, name) VALUES (1, 'widget');
INSERT INTO product (id, name) VALUES (2, 'gadget');
