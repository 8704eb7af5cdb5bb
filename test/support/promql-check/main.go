// Reads one PromQL expression per line (each a JSON string) on stdin and answers, one JSON line
// each, whether Prometheus's own parser accepts it: {"ok":true} or {"ok":false,"err":"..."}.
// Used by test/integration/charts/host-chart.test.ts for the chart's PrometheusRule.
package main

import (
	"bufio"
	"encoding/json"
	"os"

	"github.com/prometheus/prometheus/promql/parser"
)

type answer struct {
	OK  bool   `json:"ok"`
	Err string `json:"err,omitempty"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	promql := parser.NewParser(parser.Options{})
	for in.Scan() {
		var expr string
		if err := json.Unmarshal(in.Bytes(), &expr); err != nil {
			_ = out.Encode(answer{Err: "not a JSON string: " + err.Error()})
			continue
		}
		if _, err := promql.ParseExpr(expr); err != nil {
			_ = out.Encode(answer{Err: err.Error()})
			continue
		}
		_ = out.Encode(answer{OK: true})
	}
	if err := in.Err(); err != nil {
		os.Exit(2)
	}
}
