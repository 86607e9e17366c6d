-- Test data for the module's pages: the service's report tables (columns as in its migrations)
-- and the few Dolibarr tables the module reads. Times of the service's tables are UTC.
-- llx_bericht.ref compares as MariaDB's utf8_unicode_ci does (case-insensitive, trailing spaces
-- ignored; the collation is registered by stubs/seed.php and stubs/main.inc.php).
CREATE TABLE llx_user (rowid INTEGER PRIMARY KEY, login TEXT, firstname TEXT, lastname TEXT);
CREATE TABLE llx_societe (rowid INTEGER PRIMARY KEY, nom TEXT, entity INTEGER DEFAULT 1, client INTEGER DEFAULT 1, status INTEGER DEFAULT 1);
CREATE TABLE llx_societe_commerciaux (rowid INTEGER PRIMARY KEY, fk_soc INTEGER, fk_user INTEGER);
CREATE TABLE llx_commande (rowid INTEGER PRIMARY KEY, ref TEXT, fk_soc INTEGER, entity INTEGER DEFAULT 1, ref_client TEXT, fk_statut INTEGER DEFAULT 1);
CREATE TABLE llx_facture (rowid INTEGER PRIMARY KEY, ref TEXT, fk_soc INTEGER, entity INTEGER DEFAULT 1, ref_client TEXT, fk_statut INTEGER DEFAULT 1,
  ref_ext TEXT, type INTEGER DEFAULT 0, fk_cond_reglement INTEGER, fk_mode_reglement INTEGER, model_pdf TEXT, fk_user_author INTEGER, paye INTEGER DEFAULT 0);
CREATE TABLE llx_facturedet (rowid INTEGER PRIMARY KEY, fk_facture INTEGER, description TEXT, subprice REAL, qty REAL, tva_tx REAL, fk_product INTEGER,
  remise_percent REAL, product_type INTEGER, fk_unit INTEGER);
CREATE TABLE llx_element_element (rowid INTEGER PRIMARY KEY, fk_source INTEGER, sourcetype TEXT, fk_target INTEGER, targettype TEXT);
CREATE TABLE llx_commandedet (rowid INTEGER PRIMARY KEY, fk_commande INTEGER, fk_product INTEGER, description TEXT, subprice REAL, tva_tx REAL, vat_src_code TEXT DEFAULT '', remise_percent REAL, rang INTEGER DEFAULT 0);
CREATE TABLE llx_product (rowid INTEGER PRIMARY KEY, ref TEXT, label TEXT, fk_product_type INTEGER DEFAULT 0, price REAL, tva_tx REAL, fk_unit INTEGER, duration TEXT);
CREATE TABLE llx_propal (rowid INTEGER PRIMARY KEY, ref TEXT, fk_soc INTEGER, entity INTEGER DEFAULT 1, ref_client TEXT, fk_statut INTEGER DEFAULT 1);
CREATE TABLE llx_fichinter (rowid INTEGER PRIMARY KEY, ref TEXT, fk_soc INTEGER, entity INTEGER DEFAULT 1, ref_client TEXT, fk_statut INTEGER DEFAULT 1);
CREATE TABLE llx_user_param (fk_user INTEGER NOT NULL, entity INTEGER NOT NULL DEFAULT 1, param TEXT NOT NULL, value TEXT NOT NULL);
CREATE TABLE llx_ecm_files (rowid INTEGER PRIMARY KEY, entity INTEGER NOT NULL DEFAULT 1, filepath TEXT NOT NULL, filename TEXT NOT NULL);
CREATE TABLE llx_actioncomm (id INTEGER PRIMARY KEY, elementtype TEXT, fk_element INTEGER, email_msgid TEXT, code TEXT);
CREATE TABLE llx_bericht (rowid INTEGER PRIMARY KEY, ref TEXT NOT NULL COLLATE utf8_unicode_ci, entity INTEGER NOT NULL DEFAULT 1, element_type TEXT, fk_element INTEGER,
  title TEXT NOT NULL, format TEXT NOT NULL DEFAULT 'A4', orientation TEXT NOT NULL DEFAULT 'portrait', odt_template TEXT, status INTEGER NOT NULL DEFAULT 0,
  version INTEGER NOT NULL DEFAULT 1, fk_bericht_parent INTEGER, is_template INTEGER NOT NULL DEFAULT 0, template_label TEXT, final_pdf_path TEXT,
  fk_user_creat INTEGER NOT NULL, fk_user_modif INTEGER, datec TEXT, tms TEXT, photos_per_sheet INTEGER NOT NULL DEFAULT 4, fk_fichinter INTEGER, fk_facture INTEGER);
CREATE TABLE llx_bericht_time (rowid INTEGER PRIMARY KEY, entity INTEGER NOT NULL DEFAULT 1, element_type TEXT NOT NULL, fk_element INTEGER NOT NULL, fk_user INTEGER NOT NULL,
  fk_bericht INTEGER, arrival TEXT NOT NULL, departure TEXT);
CREATE TABLE llx_bericht_material (rowid INTEGER PRIMARY KEY, entity INTEGER NOT NULL DEFAULT 1, element_type TEXT NOT NULL, fk_element INTEGER NOT NULL, label TEXT NOT NULL,
  qty REAL NOT NULL DEFAULT 1, note TEXT, fk_product INTEGER, batch TEXT, fk_stock_mouvement INTEGER, fk_bericht INTEGER);
CREATE TABLE llx_bericht_page (rowid INTEGER PRIMARY KEY, fk_bericht INTEGER NOT NULL, page_order INTEGER NOT NULL DEFAULT 0, title TEXT, layout TEXT NOT NULL DEFAULT 'photo',
  source_path TEXT, source_path_2 TEXT, checklist TEXT);
CREATE TABLE llx_bericht_signature (rowid INTEGER PRIMARY KEY, entity INTEGER NOT NULL DEFAULT 1, fk_bericht INTEGER NOT NULL, fk_page INTEGER NOT NULL,
  verify_code TEXT NOT NULL, metadata_path TEXT NOT NULL, signer_name TEXT NOT NULL, datec TEXT NOT NULL);
CREATE TABLE llx_bericht_mail (rowid INTEGER PRIMARY KEY, entity INTEGER NOT NULL DEFAULT 1, fk_bericht INTEGER NOT NULL, state TEXT NOT NULL,
  mail_to TEXT NOT NULL, mail_cc TEXT, mail_bcc TEXT, subject TEXT NOT NULL, body TEXT NOT NULL DEFAULT '', lang TEXT, attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT, expires_at TEXT, lease_owner TEXT, lease_until TEXT, message_id TEXT, server_response TEXT, error_code TEXT, error TEXT,
  fk_actioncomm INTEGER, fk_user_author INTEGER NOT NULL, ip TEXT, datec TEXT NOT NULL, date_sent TEXT, tms TEXT);
CREATE TABLE llx_bericht_photo_evidence (rowid INTEGER PRIMARY KEY, entity INTEGER NOT NULL DEFAULT 1, filepath TEXT NOT NULL, filename TEXT NOT NULL);

INSERT INTO llx_user VALUES (1, 'admin', '', 'SuperAdmin'), (10, 'mmueller', 'Max', 'Müller'), (11, 'lschmidt', 'Lena', 'Schmidt');
INSERT INTO llx_societe (rowid, nom, entity) VALUES (1, 'Bäckerei Sonnenschein KG', 1), (2, 'Metzgerei Huber', 1);
INSERT INTO llx_societe_commerciaux (fk_soc, fk_user) VALUES (2, 11);
INSERT INTO llx_commande VALUES (1, 'CO2611-0001', 1, 1, 'Bestellung 4711', 1), (2, 'CO2611-0002', 2, 1, 'PO-HUBER-77', 1), (3, 'CO2611-0003', 1, 2, NULL, 1);
INSERT INTO llx_facture (rowid, ref, fk_soc, entity, ref_client, fk_statut) VALUES (1, 'FA2611-0001', 1, 1, NULL, 0), (2, 'FA2611-0002', 2, 1, NULL, 1);
INSERT INTO llx_propal VALUES (1, 'PR2611-0001', 2, 1, NULL, 1);
INSERT INTO llx_fichinter VALUES (1, 'FI2611-0001', 2, 1, 'SA-2026-5', 1), (2, 'FI2611-0002', 1, 1, NULL, 0);

INSERT INTO llx_bericht (rowid, ref, entity, element_type, fk_element, title, status, version, fk_bericht_parent, is_template, final_pdf_path, fk_user_creat, datec, tms) VALUES
 (1, 'BR2611-0001', 1, 'commande', 1, 'Jahreswartung Kühlzelle', 1, 1, NULL, 0, 'bericht/BR2611-0001/BR2611-0001.pdf', 10, '2026-11-02 08:00:00', '2026-11-02 09:30:00'),
 (2, 'BR2611-0002', 1, 'commande', 1, 'Tür <b>Dichtung</b> & Co', 0, 1, NULL, 0, NULL, 11, '2026-11-05 10:00:00', '2026-11-05 10:20:00'),
 (3, 'BR2611-0003', 1, 'commande', 2, 'Störung Tiefkühler', 1, 1, NULL, 0, 'bericht/BR2611-0003/BR2611-0003.pdf', 11, '2026-11-10 07:00:00', '2026-11-10 08:00:00'),
 (4, 'BR2611-0004', 1, 'facture', 1, 'Abnahme Rechnung', 0, 1, NULL, 0, NULL, 10, '2026-11-12 12:00:00', '2026-11-12 12:00:00'),
 (5, 'BR2611-0005', 1, 'propal', 1, 'Besichtigung vor Angebot', 1, 1, NULL, 0, 'bericht/BR2611-0005/BR2611-0005.pdf', 10, '2026-11-15 09:00:00', '2026-11-15 09:45:00'),
 (6, 'BR2611-0006', 1, 'commande', 1, 'Vorlage Wartung', 0, 1, NULL, 1, NULL, 1, '2026-11-16 09:00:00', '2026-11-16 09:00:00'),
 (7, 'BR2611-0007', 1, 'commande', 1, 'Jahreswartung Kühlzelle', 0, 2, 1, 0, NULL, 10, '2026-11-20 08:00:00', '2026-11-20 08:00:00'),
 (8, 'BR2611-0008', 2, 'commande', 1, 'Andere Firma', 0, 1, NULL, 0, NULL, 10, '2026-11-21 08:00:00', '2026-11-21 08:00:00'),
 (9, 'BR2611-0009', 1, 'commande', 3, 'Auftrag der anderen Firma', 0, 1, NULL, 0, NULL, 10, '2026-11-22 08:00:00', '2026-11-22 08:00:00'),
 (10, 'BR2611-0010', 1, 'fichinter', 1, 'Einsatz Kältetechnik', 1, 1, NULL, 0, 'bericht/BR2611-0010/BR2611-0010.pdf', 10, '2026-10-20 08:00:00', '2026-10-20 09:00:00'),
 (11, 'BR2611-0011', 1, 'fichinter', 1, 'Nachkontrolle', 0, 1, NULL, 0, NULL, 11, '2026-10-21 08:00:00', '2026-10-21 08:00:00'),
 (12, 'BR2611-0012', 1, 'commande', 2, 'Entwurf für Huber', 0, 1, NULL, 0, NULL, 11, '2026-10-22 08:00:00', '2026-10-22 08:00:00');

INSERT INTO llx_bericht_page (fk_bericht, page_order, title, layout, source_path, source_path_2, checklist) VALUES
 (1, 1, 'a', 'photo', 'commande/CO2611-0001/Heizung vorher.jpg', NULL, NULL),
 (1, 2, 'b', 'checklist', NULL, NULL, '[{"id":1,"label":"Dichtung","state":"ok","photos":["commande/CO2611-0001/Dichtung.jpg"]}]'),
 (1, 3, 'Unterschrift', 'signature', 'bericht/BR2611-0001/unterschrift_1.png', NULL, NULL),
 (2, 1, 'a', 'photo', 'commande/CO2611-0001/Entwurf.jpg', NULL, NULL),
 (7, 1, 'a', 'photo', 'commande/CO2611-0001/Heizung vorher.jpg', NULL, NULL),
 (7, 2, 'b', 'before_after', 'commande/CO2611-0001/Heizung vorher.jpg', 'commande/CO2611-0001/Heizung nachher.jpg', NULL),
 (3, 1, 'a', 'before_after', 'commande/CO2611-0002/Tiefkühler.jpg', 'commande/CO2611-0002/Tiefkühler 2.jpg', NULL),
 (3, 2, 'Unterschrift', 'signature', 'bericht/BR2611-0003/unterschrift_1.png', NULL, NULL),
 (3, 3, 'nachher', 'photo', 'commande/CO2611-0002/Nach der Unterschrift.jpg', NULL, NULL);
INSERT INTO llx_bericht_signature (entity, fk_bericht, fk_page, verify_code, metadata_path, signer_name, datec) VALUES
 (1, 1, 3, 'v1', 'bericht/BR2611-0001/u.json', 'Anna Krüger', '2026-11-02 09:15:00'),
 (1, 3, 9, 'v3', 'bericht/BR2611-0003/u.json', 'Hans Huber', '2026-11-10 07:50:00');
INSERT INTO llx_bericht_mail (entity, fk_bericht, state, mail_to, subject, error_code, error, fk_user_author, datec, date_sent) VALUES
 (1, 1, 'failed', 'alt@sonnenschein.example', 'Bericht', 'SMTP_REJECTED', '550 mailbox unavailable', 10, '2026-11-02 10:00:00', NULL),
 (1, 1, 'sent', 'einkauf@sonnenschein.example', 'Bericht', NULL, NULL, 10, '2026-11-02 11:00:00', '2026-11-02 11:01:00'),
 (1, 3, 'failed', 'huber@metzgerei.example', 'Bericht', 'SMTP_REJECTED', '550 mailbox unavailable', 11, '2026-11-10 09:00:00', NULL);

-- What the reports of order 1 took (report 1: 2 h 15 of Max Müller, 45 min of Lena Schmidt, a
-- part on the order, one not on it with a serial number, free text; the second interval of report
-- 7 is not report 1's), and report 3's invoice.
INSERT INTO llx_product (rowid, ref, label, fk_product_type, price, tva_tx, fk_unit, duration) VALUES
 (1, 'ARBEIT-STD', 'Arbeitsstunde Techniker', 1, 65, 19, NULL, '1h'), (2, 'DICHT', 'Dichtungssatz Brenner', 0, 12.5, 19, 28, NULL),
 (3, 'PUMPE', 'Umwälzpumpe', 0, 1289.5, 19, NULL, NULL);
INSERT INTO llx_commandedet (fk_commande, fk_product, description, subprice, tva_tx, remise_percent, rang) VALUES (1, 2, 'Dichtungssatz Brenner', 11.9, 19, 10, 1);
INSERT INTO llx_bericht_time (element_type, fk_element, fk_user, fk_bericht, arrival, departure) VALUES
 ('commande', 1, 10, 1, '2026-11-02 07:00:00', '2026-11-02 09:15:00'), ('commande', 1, 11, 1, '2026-11-02 08:00:00', '2026-11-02 08:45:00'),
 ('commande', 1, 10, NULL, '2026-11-20 07:00:00', '2026-11-20 08:00:00');
INSERT INTO llx_bericht_material (element_type, fk_element, label, qty, note, fk_product, batch, fk_stock_mouvement, fk_bericht) VALUES
 ('commande', 1, 'Dichtungssatz Brenner', 2, NULL, 2, NULL, 5, 1), ('commande', 1, 'Umwälzpumpe', 1, 'alte Pumpe mitgenommen', 3, 'UPM3-0042', 6, 1),
 ('commande', 1, 'Kleinteile', 1, NULL, NULL, NULL, 0, 1), ('commande', 1, 'Schrauben', 4, NULL, NULL, NULL, NULL, NULL);
UPDATE llx_bericht SET fk_facture = 2 WHERE rowid = 3;
