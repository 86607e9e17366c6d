<?php
/* Stand-in: the tab head of Dolibarr's facture card. */
function facture_prepare_head($object)
{
	return array();
}
