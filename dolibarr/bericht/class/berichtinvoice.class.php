<?php
/* fieldreport: the draft invoice of a visit, made by the office from the report's tab.
 *
 * When the service leaves the draft to the clerk (BERICHT_INVOICE_FROM_REPORT 0), a final report on
 * an order offers a button on the order's "Berichte" tab. It bills what the report took: its time
 * on site (llx_bericht_time.fk_bericht) and the parts it settled (llx_bericht_material.fk_bericht),
 * on the order's draft invoice of the visits (ref_ext 'fieldreport:<ref>', not yet validated) or a
 * new one, with the same rules the service follows when it makes the draft itself, but through
 * Dolibarr's own classes: Facture::create and Facture::addline (so Dolibarr's triggers run), the
 * labour as the time billing adds it (the service BERICHT_LABOUR_SERVICE; hours divided by its
 * duration, rounded to 2 decimals; a line per technician, "Zeitaufwand <who> : 02:15"), a part on the order at the order line's
 * price, discount and VAT, any other at Product::getSellPrice's price for the customer, free text
 * at 0 for the clerk to price (without the labour service set, a report with time is refused, not
 * billed without it). The report then says which invoice it went on (llx_bericht.fk_facture):
 * a second click finds it and makes nothing.
 *
 * This program is free software: GNU General Public License, version 3 or later.
 */

require_once DOL_DOCUMENT_ROOT.'/commande/class/commande.class.php';
require_once DOL_DOCUMENT_ROOT.'/compta/facture/class/facture.class.php';
require_once DOL_DOCUMENT_ROOT.'/product/class/product.class.php';
require_once DOL_DOCUMENT_ROOT.'/core/lib/date.lib.php';

/**
 * The draft invoice of a final report on an order.
 */
class BerichtInvoice
{
	/** The prefix of ref_ext of the invoices and interventions of the visits. */
	const REF_EXT_PREFIX = 'fieldreport:';

	/** @var DoliDB */
	public $db;
	/** @var int */
	public $entity;
	/** @var string What went wrong, translated */
	public $error = '';

	/**
	 * @param DoliDB $db     Database handler
	 * @param int    $entity Entity of the reports
	 */
	public function __construct($db, $entity)
	{
		$this->db = $db;
		$this->entity = (int) $entity;
	}

	/**
	 * Whether the tab offers the button for $row to $user: a final report on an order not yet on an
	 * invoice, the draft left to the clerk, invoices enabled, and a user of the company (not a
	 * customer's login) who may create invoices.
	 *
	 * @param object $row  A report as BerichtReports reads it
	 * @param User   $user User
	 * @return bool
	 */
	public static function offered($row, $user)
	{
		// fk_facture 0: billed, if at all, before reports said where (an older version of the service).
		return (int) $row->status === 1 && $row->element_type === 'commande' && !isset($row->fk_facture)
			&& trim(getDolGlobalString('BERICHT_INVOICE_FROM_REPORT', '1')) === '0'
			&& isModEnabled('facture') && empty($user->socid) && $user->hasRight('facture', 'creer');
	}

	/**
	 * Makes or completes the order's draft invoice with what report $reportid took, in one
	 * transaction: all of it or nothing.
	 *
	 * @param User $user     The clerk
	 * @param int  $reportid The report's rowid
	 * @return int The invoice's rowid, or -1 with $this->error
	 */
	public function make($user, $reportid)
	{
		global $conf, $langs, $mysoc;
		// Text written into Dolibarr's rows is plain (transnoentitiesnoconv); messages on the page are HTML (trans).
		$langs->loadLangs(array('bericht@bericht', 'bills'));
		$p = $this->db->prefix();

		$this->db->begin();
		// The report locked: two clicks make one invoice.
		$resql = $this->db->query("SELECT rowid, ref, status, element_type, fk_element, fk_facture FROM ".$p."bericht"
			." WHERE rowid = ".((int) $reportid)." AND entity = ".$this->entity." FOR UPDATE");
		$report = $resql ? $this->db->fetch_object($resql) : null;
		if (!$report) {
			return $this->fail($resql ? $langs->trans('BerichtInvoiceNoReport') : $this->db->lasterror());
		}
		if ($report->fk_facture > 0) {
			$this->db->commit();
			return (int) $report->fk_facture;
		}
		if (isset($report->fk_facture)) {
			return $this->fail($langs->trans('BerichtInvoiceNotOffered'));
		}
		if ((int) $report->status !== 1 || $report->element_type !== 'commande') {
			return $this->fail($langs->trans('BerichtInvoiceNotFinal'));
		}

		// The order locked too, as the service locks it when it makes a draft: two reports of one order billed at once make one draft.
		$resql = $this->db->query("SELECT rowid FROM ".$p."commande WHERE rowid = ".((int) $report->fk_element)." FOR UPDATE");
		if (!$resql) {
			return $this->fail($this->db->lasterror());
		}
		$order = new Commande($this->db);
		if ($order->fetch((int) $report->fk_element) <= 0) {
			return $this->fail($langs->trans('BerichtInvoiceNoReport'));
		}
		$order->fetch_thirdparty();
		$customer = $order->thirdparty;

		// What the report took: its time on site per technician, the parts it settled.
		$times = array();
		$resql = $this->db->query("SELECT t.fk_user, t.arrival, t.departure, u.login, u.firstname, u.lastname FROM ".$p."bericht_time as t"
			." LEFT JOIN ".$p."user as u ON u.rowid = t.fk_user WHERE t.fk_bericht = ".((int) $report->rowid)." AND t.departure IS NOT NULL ORDER BY t.arrival, t.rowid");
		if (!$resql) {
			return $this->fail($this->db->lasterror());
		}
		while ($obj = $this->db->fetch_object($resql)) {
			$uid = (int) $obj->fk_user;
			if (!isset($times[$uid])) {
				$name = trim(trim((string) $obj->firstname).' '.trim((string) $obj->lastname));
				$times[$uid] = array('name' => $name !== '' ? $name : ($obj->login ? $obj->login : '#'.$uid), 'seconds' => 0);
			}
			// The service's times are UTC.
			$times[$uid]['seconds'] += max(0, strtotime($obj->departure.' UTC') - strtotime($obj->arrival.' UTC'));
		}
		$parts = array();
		$resql = $this->db->query("SELECT rowid, label, qty, note, fk_product, batch FROM ".$p."bericht_material"
			." WHERE fk_bericht = ".((int) $report->rowid)." AND entity = ".$this->entity." ORDER BY rowid");
		if (!$resql) {
			return $this->fail($this->db->lasterror());
		}
		while ($obj = $this->db->fetch_object($resql)) {
			$parts[] = $obj;
		}

		// The order's lines: a product on the order keeps the order line's price, discount and VAT.
		$onorder = array();
		foreach ($order->lines as $line) {
			if ($line->fk_product > 0 && !isset($onorder[(int) $line->fk_product])) {
				$onorder[(int) $line->fk_product] = $line;
			}
		}
		$priceof = function ($product) use ($onorder, $mysoc, $customer) {
			if (isset($onorder[(int) $product->id])) {
				$l = $onorder[(int) $product->id];
				// The rate with its code, as Dolibarr's card passes a line's VAT to addline.
				$vat = (float) $l->tva_tx.(empty($l->vat_src_code) ? '' : ' ('.$l->vat_src_code.')');
				return array('pu_ht' => (float) $l->subprice, 'tva_tx' => $vat, 'remise' => (float) $l->remise_percent);
			}
			// getSellPrice gives a customer's own price formatted for the screen (price()): back to a number, as Dolibarr's card does.
			$price = $product->getSellPrice($mysoc, $customer, 0);
			return array('pu_ht' => price2num($price['pu_ht']), 'tva_tx' => $price['tva_tx'], 'remise' => 0);
		};

		$lines = array();
		if ($times) {
			$labourref = trim(getDolGlobalString('BERICHT_LABOUR_SERVICE'));
			$labour = new Product($this->db);
			// The clerk is there to mend the setting: refused rather than billed without the labour.
			if ($labourref === '' || $labour->fetch(0, $labourref) <= 0) {
				return $this->fail($langs->trans('BerichtInvoiceNoLabour', $labourref));
			}
			$hours = $labour->getProductDurationHours();
			if ($hours <= 0) {
				return $this->fail($langs->trans('BerichtInvoiceNoDuration', $labour->ref));
			}
			$price = $priceof($labour);
			foreach ($times as $t) {
				// As the time billing's "TimeSpentForInvoice : 02:15", with the technician's name (Dolibarr's German
				// text has no place for it); a day of 24 h, as the service counts it.
				$lines[] = array('desc' => $langs->transnoentitiesnoconv('BerichtInvoiceLabour', $t['name'], convertSecondToTime($t['seconds'], 'all', 86400)),
					'pu_ht' => $price['pu_ht'], 'qty' => round($t['seconds'] / 3600 / $hours, 2), 'tva_tx' => $price['tva_tx'], 'remise' => $price['remise'],
					'fk_product' => $labour->id, 'type' => Product::TYPE_SERVICE, 'fk_unit' => null);
			}
		}
		foreach ($parts as $part) {
			$product = new Product($this->db);
			if (empty($part->fk_product) || $product->fetch((int) $part->fk_product) <= 0) {
				$lines[] = array('desc' => self::lineText(array($part->label, (string) $part->note, $langs->transnoentitiesnoconv('BerichtInvoiceFreeText'))),
					'pu_ht' => 0, 'qty' => (float) $part->qty, 'tva_tx' => 0, 'remise' => 0, 'fk_product' => 0, 'type' => Product::TYPE_PRODUCT, 'fk_unit' => null);
				continue;
			}
			$price = $priceof($product);
			$text = array($part->label !== $product->label ? $part->label : '', $part->batch ? $langs->transnoentitiesnoconv('BerichtInvoiceBatch', $part->batch) : '', (string) $part->note);
			$lines[] = array('desc' => self::lineText($text), 'pu_ht' => $price['pu_ht'], 'qty' => (float) $part->qty, 'tva_tx' => $price['tva_tx'],
				'remise' => $price['remise'], 'fk_product' => $product->id, 'type' => ((int) $product->type === Product::TYPE_SERVICE ? Product::TYPE_SERVICE : Product::TYPE_PRODUCT),
				'fk_unit' => $product->fk_unit ? (int) $product->fk_unit : null);
		}
		if (!$lines) {
			return $this->fail($langs->trans('BerichtInvoiceNothing'));
		}

		// The order's draft invoice of the visits, locked, else a new one linked to the order.
		$resql = $this->db->query("SELECT f.rowid FROM ".$p."facture as f INNER JOIN ".$p."element_element as ee ON ee.fk_target = f.rowid"
			." AND ee.targettype = 'facture' AND ee.sourcetype = 'commande' WHERE ee.fk_source = ".((int) $order->id)." AND f.entity = ".$this->entity
			." AND f.fk_statut = 0 AND f.type = 0 AND f.ref_ext LIKE '".$this->db->escape(self::REF_EXT_PREFIX)."%' ORDER BY f.rowid DESC".$this->db->plimit(1)." FOR UPDATE");
		if (!$resql) {
			return $this->fail($this->db->lasterror());
		}
		$draft = $this->db->fetch_object($resql);
		$invoice = new Facture($this->db);
		if ($draft) {
			if ($invoice->fetch((int) $draft->rowid) <= 0) {
				return $this->fail($invoice->error);
			}
		} else {
			$invoice->socid = $customer->id;
			$invoice->type = Facture::TYPE_STANDARD;
			$invoice->date = dol_get_first_hour(dol_now());
			$invoice->ref_client = (string) $order->ref_client;
			$invoice->ref_customer = (string) $order->ref_client;
			$invoice->cond_reglement_id = $customer->cond_reglement_id;
			$invoice->mode_reglement_id = $customer->mode_reglement_id;
			$invoice->model_pdf = getDolGlobalString('FACTURE_ADDON_PDF');
			$invoice->fk_project = $order->fk_project;
			$invoice->ref_ext = self::REF_EXT_PREFIX.$report->ref;
			$invoice->linked_objects = array('commande' => $order->id);
			$id = $invoice->create($user);
			if ($id <= 0 || $invoice->fetch($id) <= 0) {
				return $this->fail($invoice->error.' '.implode(' ', (array) $invoice->errors));
			}
		}
		// The visit's intervention (while it exists), linked too.
		$resql = $this->db->query("SELECT fi.rowid, ee.rowid as linked FROM ".$p."bericht as b INNER JOIN ".$p."fichinter as fi ON fi.rowid = b.fk_fichinter"
			." LEFT JOIN ".$p."element_element as ee ON ee.fk_source = fi.rowid AND ee.sourcetype = 'fichinter' AND ee.fk_target = ".((int) $invoice->id)." AND ee.targettype = 'facture'"
			." WHERE b.rowid = ".((int) $report->rowid));
		if (!$resql) {
			return $this->fail($this->db->lasterror());
		}
		$fi = $this->db->fetch_object($resql);
		if ($fi && empty($fi->linked) && $invoice->add_object_linked('fichinter', (int) $fi->rowid) <= 0) {
			return $this->fail($invoice->error);
		}
		foreach ($lines as $l) {
			$r = $invoice->addline($l['desc'], $l['pu_ht'], $l['qty'], $l['tva_tx'], 0, 0, $l['fk_product'], $l['remise'], '', '', 0, 0, 0, 'HT', 0, $l['type'],
				-1, 0, '', 0, 0, null, 0, '', array(), 100, 0, $l['fk_unit']);
			if ($r <= 0) {
				return $this->fail($invoice->error.' '.implode(' ', (array) $invoice->errors));
			}
		}
		if (!$this->db->query("UPDATE ".$p."bericht SET fk_facture = ".((int) $invoice->id)." WHERE rowid = ".((int) $report->rowid))) {
			return $this->fail($this->db->lasterror());
		}
		$this->db->commit();
		return (int) $invoice->id;
	}

	/**
	 * A line's text from a technician's words: plain lines, as the office types them; where they hold
	 * '<', '>' or '&', HTML with those escaped and the line breaks as <br> (Dolibarr prints a text
	 * that looks like HTML as HTML), as the service writes it.
	 *
	 * @param string[] $parts The pieces, empty ones left out
	 * @return string
	 */
	public static function lineText($parts)
	{
		$text = implode("\n", array_filter(array_map('strval', $parts), 'strlen'));
		if (!preg_match('/[<>&]/', $text)) {
			return $text;
		}
		return preg_replace('/\r?\n/', "<br>\n", htmlspecialchars($text, ENT_COMPAT, 'UTF-8'));
	}

	/**
	 * @param string $error What went wrong
	 * @return int -1, the transaction rolled back
	 */
	private function fail($error)
	{
		$this->db->rollback();
		$this->error = trim($error);
		return -1;
	}
}
