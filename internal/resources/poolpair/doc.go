// Package poolpair is the two pool pair resources, dwsfallback_tpu_pool_pair and dwsfallback_gpu_pool_pair: plan A
// (on demand) and plan B (DWS flex-start or queued provisioning) of one accelerator. resource.go holds the CRUD both
// share as one generic resource; tpu_*.go and gpu_*.go each kind's attributes, model and checks. It exports only
// NewTPU and NewGPU.
package poolpair
