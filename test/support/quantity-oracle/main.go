// Quantity oracle for voe's differential test (test/integration/kube/quantity-oracle.test.ts):
// k8s.io/apimachinery's resource.Quantity, pinned to the version of our kube-apiserver.
//
// stdin, one JSON object per line:
//
//	{"q":"STR"}          ParseQuantity(STR)
//	{"cmp":["A","B"]}    ParseQuantity of both; Cmp when both parse
//	{"json":"RAW"}       encoding/json of {"storage":RAW} into a Quantity (Quantity.UnmarshalJSON
//	                     on the raw value text, as the API server and Harvester decode it)
//	{"milli":"RAW"}      as "json", then RoundUp(-3) (the API server's SetDefaults_ResourceList)
//
// stdout, one JSON object per line: {"ok":true,"exact":"<AsDec().String()>","null":bool} or
// {"ok":false,"err":"..."}; for "cmp": {"ok":true,"cmp":-1|0|1}.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/api/resource"
)

type request struct {
	Q     *string   `json:"q"`
	Cmp   *[]string `json:"cmp"`
	JSON  *string   `json:"json"`
	Milli *string   `json:"milli"`
}

type answer struct {
	Ok    bool   `json:"ok"`
	Err   string `json:"err,omitempty"`
	Exact string `json:"exact,omitempty"`
	Null  bool   `json:"null,omitempty"`
	Cmp   *int   `json:"cmp,omitempty"`
}

func exact(q resource.Quantity) answer {
	return answer{Ok: true, Exact: q.AsDec().String()}
}

func decode(raw string) (resource.Quantity, bool, error) {
	var holder struct {
		Storage *resource.Quantity `json:"storage"`
	}
	if err := json.Unmarshal([]byte(`{"storage":`+raw+`}`), &holder); err != nil {
		return resource.Quantity{}, false, err
	}
	if holder.Storage == nil {
		return resource.Quantity{}, true, nil
	}
	return *holder.Storage, false, nil
}

func handle(r request) answer {
	switch {
	case r.Q != nil:
		q, err := resource.ParseQuantity(*r.Q)
		if err != nil {
			return answer{Err: err.Error()}
		}
		return exact(q)
	case r.Cmp != nil && len(*r.Cmp) == 2:
		a, err := resource.ParseQuantity((*r.Cmp)[0])
		if err != nil {
			return answer{Err: err.Error()}
		}
		b, err := resource.ParseQuantity((*r.Cmp)[1])
		if err != nil {
			return answer{Err: err.Error()}
		}
		c := a.Cmp(b)
		return answer{Ok: true, Cmp: &c}
	case r.JSON != nil || r.Milli != nil:
		raw := r.JSON
		if raw == nil {
			raw = r.Milli
		}
		q, null, err := decode(*raw)
		if err != nil {
			return answer{Err: err.Error()}
		}
		if null {
			return answer{Ok: true, Null: true}
		}
		if r.Milli != nil {
			q.RoundUp(-3)
		}
		return exact(q)
	}
	return answer{Err: "unknown request"}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			fmt.Fprintf(os.Stderr, "bad request line: %v\n", err)
			os.Exit(2)
		}
		if err := enc.Encode(handle(r)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
