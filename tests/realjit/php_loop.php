<?php
// A hot loop for opcache's tracing JIT (php_check.sh): compiled into the
// JIT buffer after a few iterations, then run from there.
function f($n)
{
    $s = 0;
    for ($i = 0; $i < $n; $i++) {
        $s += $i * 3 % 7;
    }
    return $s;
}
$t = 0;
for ($k = 0; $k < 200; $k++) {
    $t += f(2000);
}
echo "sum $t\n";
