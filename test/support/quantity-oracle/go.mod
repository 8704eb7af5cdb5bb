// The quantity oracle of voe's differential test: apimachinery pinned to our kube-apiserver's
// staging version (src/controlplane/go: Kubernetes v1.33.13 <-> k8s.io/apimachinery v0.33.13).
module github.com/volume-online-expansion/voe/test/quantity-oracle

go 1.24.0

require k8s.io/apimachinery v0.33.13

require (
	github.com/fxamacker/cbor/v2 v2.7.0 // indirect
	github.com/gogo/protobuf v1.3.2 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	gopkg.in/inf.v0 v0.9.1 // indirect
)
