<?php
/* Stand-in: the tab head of Dolibarr's commande card. */
function commande_prepare_head($object)
{
	return array();
}
