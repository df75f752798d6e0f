// Package multikueue is the two MultiKueue resources: dwsfallback_multikueue_worker (a worker cluster a manager
// dispatches to, with the ServiceAccount, rights and kubeconfig Secret it is reached by) and
// dwsfallback_multikueue_config (the manager's MultiKueueConfig and AdmissionCheck). It exports only NewWorker and
// NewConfig. What a manager needs on a worker, with no Terraform in it, is internal/multikueue (imported as mk).
package multikueue
