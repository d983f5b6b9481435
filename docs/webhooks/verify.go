// Verify a bill-checkout webhook (Standard Webhooks) in Go, standard library only.
//
//	WEBHOOK_SECRET=whsec_… WEBHOOK_ID=… WEBHOOK_TIMESTAMP=… WEBHOOK_SIGNATURE=… go run verify.go < body.json
//
// In your handler, call verifyWebhook(secret, r.Header, rawBody, time.Now()) on the raw body, before parsing it.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

const tolerance = 5 * time.Minute

func verifyWebhook(secret string, header http.Header, rawBody []byte, now time.Time) (map[string]any, error) {
	id, timestamp, signatures := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || timestamp == "" || signatures == "" {
		return nil, errors.New("missing webhook headers")
	}
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || now.Sub(time.Unix(seconds, 0)).Abs() > tolerance {
		return nil, errors.New("timestamp outside the tolerance")
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return nil, errors.New("the secret is not base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(rawBody)
	expected := mac.Sum(nil)
	for _, entry := range strings.Split(signatures, " ") {
		version, signature, _ := strings.Cut(entry, ",")
		given, err := base64.StdEncoding.DecodeString(signature)
		if version == "v1" && err == nil && hmac.Equal(given, expected) {
			var notice map[string]any
			if err := json.Unmarshal(rawBody, &notice); err != nil {
				return nil, err
			}
			return notice, nil
		}
	}
	return nil, errors.New("no valid signature")
}

func main() {
	header := http.Header{}
	header.Set("webhook-id", os.Getenv("WEBHOOK_ID"))
	header.Set("webhook-timestamp", os.Getenv("WEBHOOK_TIMESTAMP"))
	header.Set("webhook-signature", os.Getenv("WEBHOOK_SIGNATURE"))
	now := time.Now()
	if fixed := os.Getenv("WEBHOOK_NOW"); fixed != "" { // tests only
		seconds, _ := strconv.ParseInt(fixed, 10, 64)
		now = time.Unix(seconds, 0)
	}
	body, _ := io.ReadAll(os.Stdin)
	notice, err := verifyWebhook(os.Getenv("WEBHOOK_SECRET"), header, body, now)
	if err != nil {
		fmt.Fprintln(os.Stderr, "REJECTED: "+err.Error())
		os.Exit(1)
	}
	if kind, ok := notice["type"].(string); ok {
		fmt.Println("OK " + kind)
	} else {
		fmt.Println("OK")
	}
}
