"""Verify a bill-checkout webhook (Standard Webhooks) in Python 3, standard library only.

    WEBHOOK_SECRET=whsec_... WEBHOOK_ID=... WEBHOOK_TIMESTAMP=... WEBHOOK_SIGNATURE=... python3 verify.py < body.json

In your server, call verify_webhook(secret, headers, raw_body) on the raw body (bytes), before parsing it.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time

TOLERANCE_SECONDS = 5 * 60


def verify_webhook(secret, headers, raw_body, now=None):
    msg_id = headers.get('webhook-id')
    timestamp = headers.get('webhook-timestamp')
    signatures = headers.get('webhook-signature')
    if not msg_id or not timestamp or not signatures:
        raise ValueError('missing webhook headers')
    now = time.time() if now is None else now
    if not timestamp.isdigit() or abs(now - int(timestamp)) > TOLERANCE_SECONDS:
        raise ValueError('timestamp outside the tolerance')
    key = base64.b64decode(secret[len('whsec_'):] if secret.startswith('whsec_') else secret)
    signed = f'{msg_id}.{timestamp}.'.encode() + raw_body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for entry in signatures.split(' '):
        version, _, signature = entry.partition(',')
        if version == 'v1' and hmac.compare_digest(signature.encode(), expected.encode()):
            return json.loads(raw_body)
    raise ValueError('no valid signature')


if __name__ == '__main__':
    headers = {
        'webhook-id': os.environ.get('WEBHOOK_ID'),
        'webhook-timestamp': os.environ.get('WEBHOOK_TIMESTAMP'),
        'webhook-signature': os.environ.get('WEBHOOK_SIGNATURE'),
    }
    now = float(os.environ['WEBHOOK_NOW']) if os.environ.get('WEBHOOK_NOW') else None  # tests only
    try:
        notice = verify_webhook(os.environ['WEBHOOK_SECRET'], headers, sys.stdin.buffer.read(), now)
    except ValueError as error:
        print(f'REJECTED: {error}', file=sys.stderr)
        sys.exit(1)
    print(f"OK {notice.get('type', '')}".strip())
