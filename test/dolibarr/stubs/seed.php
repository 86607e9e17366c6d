<?php
/* Makes the SQLite test database: php seed.php <database file> <fixtures.sql> */
$pdo = new PDO('sqlite:'.$argv[1]);
$pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
$pdo->sqliteCreateCollation('utf8_unicode_ci', function ($a, $b) {
	return strcmp(mb_strtolower(rtrim((string) $a, ' ')), mb_strtolower(rtrim((string) $b, ' ')));
});
$pdo->exec(file_get_contents($argv[2]));
echo "ok\n";
