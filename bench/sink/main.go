// Benchmark sink: reads every request body to its end, then answers
// {"received": N} with the number of body bytes it read (400 on a read error).
// A sink that answers before reading the body (nginx `return 200`) makes the
// client stop sending and the figures false.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"flag"
	"fmt"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"time"
)

// selfSigned makes a certificate for 127.0.0.1 and localhost, valid for a day:
// clients are told not to verify it (hoist -k, curl -k).
func selfSigned() tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	template := x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "bench sink"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, &template, &template, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address; the bound address is printed as the first line")
	useTLS := flag.Bool("tls", false, "serve HTTPS (HTTP/1.1 only) with a self-signed certificate")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ln.Addr().String())
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "{\"received\": %d, \"error\": %q}\n", n, err.Error())
			return
		}
		fmt.Fprintf(w, "{\"received\": %d}\n", n)
	})
	server := &http.Server{Handler: handler, MaxHeaderBytes: http.DefaultMaxHeaderBytes}
	if *useTLS {
		// HTTP/1.1 only: curl's HTTP/2 upload is slower here, and hoist speaks HTTP/1.1.
		server.TLSConfig = &tls.Config{Certificates: []tls.Certificate{selfSigned()}, NextProtos: []string{"http/1.1"}}
		server.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
		log.Fatal(server.ServeTLS(ln, "", ""))
	}
	log.Fatal(server.Serve(ln))
}
