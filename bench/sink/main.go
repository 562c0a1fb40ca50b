// Benchmark sink: reads every request body to its end, then answers
// {"received": N} with the number of body bytes it read (400 on a read error).
// A sink that answers before reading the body (nginx `return 200`) makes the
// client stop sending and the figures false.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address; the bound address is printed as the first line")
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
	log.Fatal((&http.Server{Handler: handler, MaxHeaderBytes: http.DefaultMaxHeaderBytes}).Serve(ln))
}
