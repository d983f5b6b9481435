<?php
// Verify a bill-checkout webhook (Standard Webhooks) in PHP, standard library only.
//   WEBHOOK_SECRET=whsec_… WEBHOOK_ID=… WEBHOOK_TIMESTAMP=… WEBHOOK_SIGNATURE=… php verify.php < body.json
// In your endpoint: verify_webhook($secret, $_SERVER['HTTP_WEBHOOK_ID'], $_SERVER['HTTP_WEBHOOK_TIMESTAMP'],
// $_SERVER['HTTP_WEBHOOK_SIGNATURE'], file_get_contents('php://input')), before parsing the body.

const TOLERANCE_SECONDS = 5 * 60;

function verify_webhook(string $secret, ?string $id, ?string $timestamp, ?string $signatures, string $rawBody, ?int $now = null): array
{
    if (!$id || !$timestamp || !$signatures) {
        throw new RuntimeException('missing webhook headers');
    }
    $now ??= time();
    if (!ctype_digit($timestamp) || abs($now - (int) $timestamp) > TOLERANCE_SECONDS) {
        throw new RuntimeException('timestamp outside the tolerance');
    }
    $key = base64_decode(str_starts_with($secret, 'whsec_') ? substr($secret, 6) : $secret, true);
    $expected = base64_encode(hash_hmac('sha256', "$id.$timestamp.$rawBody", $key, true));
    foreach (explode(' ', $signatures) as $entry) {
        [$version, $signature] = array_pad(explode(',', $entry, 2), 2, '');
        if ($version === 'v1' && hash_equals($expected, $signature)) {
            return json_decode($rawBody, true, 512, JSON_THROW_ON_ERROR);
        }
    }
    throw new RuntimeException('no valid signature');
}

if (PHP_SAPI === 'cli' && realpath($argv[0]) === __FILE__) {
    $now = getenv('WEBHOOK_NOW') ? (int) getenv('WEBHOOK_NOW') : null; // tests only
    try {
        $notice = verify_webhook(
            (string) getenv('WEBHOOK_SECRET'),
            getenv('WEBHOOK_ID') ?: null,
            getenv('WEBHOOK_TIMESTAMP') ?: null,
            getenv('WEBHOOK_SIGNATURE') ?: null,
            stream_get_contents(STDIN),
            $now,
        );
    } catch (Throwable $error) {
        fwrite(STDERR, 'REJECTED: ' . $error->getMessage() . "\n");
        exit(1);
    }
    echo trim('OK ' . ($notice['type'] ?? '')), "\n";
}
