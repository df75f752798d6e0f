// Package multikueue makes what a MultiKueue manager needs to reach its worker clusters: on each worker a
// ServiceAccount with the rights the manager's Kueue uses and a token, and on the manager the kubeconfig Secret a
// MultiKueueCluster names. It holds no Terraform code; the provider's multikueue resources call it.
package multikueue

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	rbacv1client "k8s.io/client-go/kubernetes/typed/rbac/v1"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
)

// KueueNamespace is where Kueue runs, and so where a manager's kubeconfig Secrets live (Kueue reads them from its own
// namespace) and where the workers' ServiceAccounts are made.
const KueueNamespace = "kueue-system"

// SecretKey is the key of a MultiKueueCluster's Secret that holds the kubeconfig (Kueue's MultiKueueConfigSecretKey).
const SecretKey = "kubeconfig"

// ManagedBy labels what this package makes, so that it removes only that.
const (
	managedByLabel = "app.kubernetes.io/managed-by"
	managedBy      = "terraform-provider-dwsfallback"
)

// Worker is the identity a manager uses on one worker cluster. Its objects are named as Kueue's own script
// (site/static/examples/multikueue/create-multikueue-kubeconfig.sh) names them, so that a worker set up with the
// script is found, and repaired, by the same names.
type Worker struct {
	// ServiceAccount is made in KueueNamespace.
	ServiceAccount string
	// User names the manager's MultiKueueCluster that uses the ServiceAccount. Several managers (or several
	// MultiKueueClusters) can reach one worker as the same ServiceAccount, the script's default name; the objects
	// go only with their last user.
	User string
}

// usersAnnotation, on the ServiceAccount, lists its Users, sorted and comma-separated.
const usersAnnotation = "dwsfallback/multikueue-users"

// withUser is the users annotation with user added (or removed), and whether other users remain.
func withUser(annotations map[string]string, user string, add bool) (map[string]string, bool) {
	if annotations == nil {
		annotations = map[string]string{}
	}
	var users []string
	for _, u := range strings.Split(annotations[usersAnnotation], ",") {
		if u != "" && u != user {
			users = append(users, u)
		}
	}
	others := len(users) > 0
	if add && user != "" {
		users = append(users, user)
	}
	slices.Sort(users)
	if len(users) == 0 {
		delete(annotations, usersAnnotation)
	} else {
		annotations[usersAnnotation] = strings.Join(users, ",")
	}
	return annotations, others
}

// TokenSecret is the name of the Secret that holds the ServiceAccount's long-lived token: the script's, the
// ServiceAccount's own name.
func (w Worker) TokenSecret() string { return w.ServiceAccount }

// Role is the name of the ClusterRole, as the script names it.
func (w Worker) Role() string { return w.ServiceAccount + "-role" }

// Binding is the name of the ClusterRoleBinding, as the script names it.
func (w Worker) Binding() string { return w.ServiceAccount + "-crb" }

// Clients are the typed clients the package needs on one cluster.
type Clients struct {
	Core corev1client.CoreV1Interface
	RBAC rbacv1client.RbacV1Interface
}

func labels() map[string]string { return map[string]string{managedByLabel: managedBy} }

// Ensure makes (or corrects) the worker's ServiceAccount, ClusterRole, ClusterRoleBinding and token Secret, and
// returns the token once the token controller has written it. Objects of the same names made before (by Kueue's
// script, or an import) are adopted: labelled as this package's, and the role's rules replaced by Rules.
func Ensure(ctx context.Context, c Clients, w Worker) ([]byte, error) {
	if err := ensureNamespace(ctx, c.Core); err != nil {
		return nil, err
	}
	sas := c.Core.ServiceAccounts(KueueNamespace)
	users, _ := withUser(nil, w.User, true)
	if err := upsert(ctx, "ServiceAccount", sas, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: w.ServiceAccount, Namespace: KueueNamespace, Labels: labels(), Annotations: users}},
		func(have, _ *corev1.ServiceAccount) error {
			*have = *EnsuredAccount(have, w)
			return nil
		}); err != nil {
		return nil, err
	}
	role, binding := Rights(w)
	if err := upsert(ctx, "ClusterRole", c.RBAC.ClusterRoles(), role, func(have, want *rbacv1.ClusterRole) error {
		// An aggregation rule would have the controller rewrite the rules again.
		have.Labels, have.Rules, have.AggregationRule = withLabels(have.Labels), want.Rules, nil
		return nil
	}); err != nil {
		return nil, err
	}
	bindings := c.RBAC.ClusterRoleBindings()
	if have, err := bindings.Get(ctx, w.Binding(), metav1.GetOptions{}); err == nil && have.RoleRef != binding.RoleRef {
		// roleRef cannot change in place.
		if err := bindings.Delete(ctx, w.Binding(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("replacing ClusterRoleBinding %s: %w", w.Binding(), err)
		}
	}
	if err := upsert(ctx, "ClusterRoleBinding", bindings, binding, func(have, want *rbacv1.ClusterRoleBinding) error {
		have.Labels, have.Subjects = withLabels(have.Labels), want.Subjects
		return nil
	}); err != nil {
		return nil, err
	}
	uid, err := liveUID(ctx, c.Core, w)
	if err != nil {
		return nil, err
	}
	return ensureToken(ctx, c.Core, w, uid)
}

// ensureToken makes the token Secret, bound to the ServiceAccount's UID, and waits for Kubernetes' token controller
// to fill it. The UID matters when the ServiceAccount was made again under its name (a worker moved away and back):
// a token controller whose cache still holds the old ServiceAccount, as after an API server restart, would otherwise
// sign the token for the old UID, which the API server rejects, and then delete the Secret as orphaned.
func ensureToken(ctx context.Context, core corev1client.CoreV1Interface, w Worker, uid types.UID) ([]byte, error) {
	secrets := core.Secrets(KueueNamespace)
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: w.TokenSecret(), Namespace: KueueNamespace, Labels: labels(),
			Annotations: map[string]string{corev1.ServiceAccountNameKey: w.ServiceAccount, corev1.ServiceAccountUIDKey: string(uid)}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
	if err := upsert(ctx, "token Secret", secrets, secret, func(have, want *corev1.Secret) error {
		// A Secret's type cannot change: one of that name that holds something else is not taken over.
		if have.Type != corev1.SecretTypeServiceAccountToken || have.Annotations[corev1.ServiceAccountNameKey] != w.ServiceAccount {
			return fmt.Errorf("the Secret %s/%s exists and is not %s's token Secret (type %s): choose another service_account, or remove it",
				KueueNamespace, w.TokenSecret(), w.ServiceAccount, have.Type)
		}
		have.Labels = withLabels(have.Labels)
		if len(have.Data[corev1.ServiceAccountTokenKey]) == 0 { // not filled yet (a script's, or a wait cut short)
			have.Annotations[corev1.ServiceAccountUIDKey] = string(uid)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	for {
		s, err := secrets.Get(ctx, w.TokenSecret(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			// The token controller deletes a token Secret whose ServiceAccount it cannot find: make it again, unless
			// the ServiceAccount is really gone or made anew meanwhile.
			if uid, err = liveUID(ctx, core, w); err != nil {
				return nil, err
			}
			secret.Annotations[corev1.ServiceAccountUIDKey] = string(uid)
			if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
				return nil, fmt.Errorf("making token Secret %s again: %w", w.TokenSecret(), err)
			}
		case err != nil:
			return nil, fmt.Errorf("reading token Secret %s/%s: %w", KueueNamespace, w.TokenSecret(), err)
		case len(s.Data[corev1.ServiceAccountTokenKey]) == 0:
		case boundTo(s, uid):
			return s.Data[corev1.ServiceAccountTokenKey], nil
		default:
			// Filled for an earlier ServiceAccount of this name (one deleted since), so it opens nothing, and the
			// token controller fills a Secret only once: deleted, and made again on the next round.
			err := secrets.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return nil, fmt.Errorf("deleting token Secret %s/%s of an earlier ServiceAccount %s: %w", KueueNamespace, s.Name, w.ServiceAccount, err)
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the token controller has not filled Secret %s/%s for ServiceAccount %s (uid %s): %w",
				KueueNamespace, w.TokenSecret(), w.ServiceAccount, uid, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// liveUID is the ServiceAccount's UID now; an error when it is gone (removed by another apply or manager meanwhile).
func liveUID(ctx context.Context, core corev1client.CoreV1Interface, w Worker) (types.UID, error) {
	sa, err := Account(ctx, core, w)
	if err == nil && sa == nil {
		err = fmt.Errorf("ServiceAccount %s/%s was deleted while its token was awaited: another apply, or another manager's, removed it; apply again", KueueNamespace, w.ServiceAccount)
	}
	if err != nil {
		return "", err
	}
	return sa.UID, nil
}

// boundTo reports whether the token Secret was filled for the ServiceAccount of this UID (a Secret that names no UID
// was not filled by the token controller, and is taken as it is).
func boundTo(s *corev1.Secret, uid types.UID) bool {
	got := boundUID(s)
	return got == "" || got == uid
}

func boundUID(s *corev1.Secret) types.UID {
	return types.UID(s.Annotations[corev1.ServiceAccountUIDKey])
}

// object is what upsert needs of a typed client.
type object[T any] interface {
	Get(ctx context.Context, name string, o metav1.GetOptions) (T, error)
	Create(ctx context.Context, obj T, o metav1.CreateOptions) (T, error)
	Update(ctx context.Context, obj T, o metav1.UpdateOptions) (T, error)
}

// upsert creates want, or updates the object of its name after fix has made it so (read again on a conflict: the
// token controller writes the token Secret meanwhile).
func upsert[T interface{ GetName() string }](ctx context.Context, kind string, c object[T], want T, fix func(have, want T) error) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		have, err := c.Get(ctx, want.GetName(), metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = c.Create(ctx, want, metav1.CreateOptions{})
		case err == nil:
			if err = fix(have, want); err == nil {
				_, err = c.Update(ctx, have, metav1.UpdateOptions{})
			}
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("writing %s %s: %w", kind, want.GetName(), err)
	}
	return nil
}

func withLabels(l map[string]string) map[string]string {
	if l == nil {
		l = map[string]string{}
	}
	l[managedByLabel] = managedBy
	return l
}

func ensureNamespace(ctx context.Context, core corev1client.CoreV1Interface) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: KueueNamespace}}
	if _, err := core.Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", KueueNamespace, err)
	}
	return nil
}

// EnsuredAccount is what Ensure makes of the ServiceAccount sa (a copy): labelled as this package's, with w.User
// among its users. The other users are other managers' and stay, so a user added or removed by another manager
// changes nothing Ensure would undo.
func EnsuredAccount(sa *corev1.ServiceAccount, w Worker) *corev1.ServiceAccount {
	out := sa.DeepCopy()
	out.Labels = withLabels(out.Labels)
	out.Annotations, _ = withUser(out.Annotations, w.User, true)
	return out
}

// Account reads the worker's ServiceAccount; nil when it is not there.
func Account(ctx context.Context, core corev1client.CoreV1Interface, w Worker) (*corev1.ServiceAccount, error) {
	sa, err := core.ServiceAccounts(KueueNamespace).Get(ctx, w.ServiceAccount, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading ServiceAccount %s: %w", w.ServiceAccount, err)
	}
	return sa, nil
}

// Rights are the worker's ClusterRole and ClusterRoleBinding as Ensure writes them.
func Rights(w Worker) (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding) {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: w.Role(), Labels: labels()}, Rules: Rules()}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: w.Binding(), Labels: labels()},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: w.Role()},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: w.ServiceAccount, Namespace: KueueNamespace}},
	}
	return role, binding
}

// Granted reports whether the worker's ClusterRole grants every rule of Rules and its ClusterRoleBinding gives that
// role to the ServiceAccount: what a role edited by hand, or made by Kueue's script alone, may not.
func Granted(ctx context.Context, rbac rbacv1client.RbacV1Interface, w Worker) (bool, error) {
	role, binding, err := Access(ctx, rbac, w)
	if err != nil {
		return false, err
	}
	return GrantedBy(role, binding, w), nil
}

// Access reads the worker's ClusterRole and ClusterRoleBinding; each is nil when it is not there.
func Access(ctx context.Context, rbac rbacv1client.RbacV1Interface, w Worker) (*rbacv1.ClusterRole, *rbacv1.ClusterRoleBinding, error) {
	role, err := rbac.ClusterRoles().Get(ctx, w.Role(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		role = nil
	case err != nil:
		return nil, nil, fmt.Errorf("reading ClusterRole %s: %w", w.Role(), err)
	}
	b, err := rbac.ClusterRoleBindings().Get(ctx, w.Binding(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		b = nil
	case err != nil:
		return nil, nil, fmt.Errorf("reading ClusterRoleBinding %s: %w", w.Binding(), err)
	}
	return role, b, nil
}

// GrantedBy is Granted of objects already read (Access).
func GrantedBy(role *rbacv1.ClusterRole, b *rbacv1.ClusterRoleBinding, w Worker) bool {
	if role == nil || b == nil {
		return false
	}
	bound := b.RoleRef.Kind == "ClusterRole" && b.RoleRef.Name == w.Role() &&
		slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == w.ServiceAccount && s.Namespace == KueueNamespace
		})
	return bound && covers(role.Rules, Rules())
}

// covers reports whether have grants every group, resource and verb of want (no resourceNames, no wildcards
// beyond "*").
func covers(have, want []rbacv1.PolicyRule) bool {
	grants := func(group, resource, verb string) bool {
		return slices.ContainsFunc(have, func(r rbacv1.PolicyRule) bool {
			return len(r.ResourceNames) == 0 && anyOf(r.APIGroups, group) && anyOf(r.Resources, resource) && anyOf(r.Verbs, verb)
		})
	}
	for _, r := range want {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					if !grants(g, res, v) {
						return false
					}
				}
			}
		}
	}
	return true
}

func anyOf(list []string, v string) bool {
	return slices.Contains(list, v) || slices.Contains(list, "*")
}

// Token is the worker's current token, nil when its Secret is gone, not filled yet, or filled for an earlier
// ServiceAccount of the same name.
func Token(ctx context.Context, core corev1client.CoreV1Interface, w Worker) ([]byte, error) {
	sa, err := Account(ctx, core, w)
	if err != nil {
		return nil, err
	}
	return TokenOf(ctx, core, w, sa)
}

// TokenOf is Token for a ServiceAccount already read (Account; nil when there is none).
func TokenOf(ctx context.Context, core corev1client.CoreV1Interface, w Worker, sa *corev1.ServiceAccount) ([]byte, error) {
	s, err := core.Secrets(KueueNamespace).Get(ctx, w.TokenSecret(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading token Secret %s/%s: %w", KueueNamespace, w.TokenSecret(), err)
	}
	token := s.Data[corev1.ServiceAccountTokenKey]
	if len(token) == 0 || boundUID(s) == "" {
		return token, nil
	}
	// A token signed for an earlier ServiceAccount of this name opens nothing.
	if sa == nil || !boundTo(s, sa.UID) {
		return nil, nil
	}
	return token, nil
}

// Remove deletes what Ensure made or adopted, and only that (objects without the managed-by label stay: another
// manager's, or a script's not yet adopted by an apply). While the ServiceAccount has other users, only w.User is
// taken off it and everything stays.
func Remove(ctx context.Context, c Clients, w Worker) error {
	sas := c.Core.ServiceAccounts(KueueNamespace)
	others := false
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sa, err := sas.Get(ctx, w.ServiceAccount, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if !ours(sa.Labels) || w.User == "" {
			return nil
		}
		if sa.Annotations, others = withUser(sa.Annotations, w.User, false); !others {
			return nil
		}
		_, err = sas.Update(ctx, sa, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("taking %s off ServiceAccount %s's users: %w", w.User, w.ServiceAccount, err)
	}
	if others {
		return nil
	}
	var errs []error
	gone := func(what string, err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s: %w", what, err))
		}
	}
	if s, err := c.Core.Secrets(KueueNamespace).Get(ctx, w.TokenSecret(), metav1.GetOptions{}); err == nil && ours(s.Labels) {
		gone("token Secret", c.Core.Secrets(KueueNamespace).Delete(ctx, w.TokenSecret(), metav1.DeleteOptions{}))
	}
	if b, err := c.RBAC.ClusterRoleBindings().Get(ctx, w.Binding(), metav1.GetOptions{}); err == nil && ours(b.Labels) {
		gone("ClusterRoleBinding", c.RBAC.ClusterRoleBindings().Delete(ctx, w.Binding(), metav1.DeleteOptions{}))
	}
	if r, err := c.RBAC.ClusterRoles().Get(ctx, w.Role(), metav1.GetOptions{}); err == nil && ours(r.Labels) {
		gone("ClusterRole", c.RBAC.ClusterRoles().Delete(ctx, w.Role(), metav1.DeleteOptions{}))
	}
	if sa, err := c.Core.ServiceAccounts(KueueNamespace).Get(ctx, w.ServiceAccount, metav1.GetOptions{}); err == nil && ours(sa.Labels) {
		gone("ServiceAccount", c.Core.ServiceAccounts(KueueNamespace).Delete(ctx, w.ServiceAccount, metav1.DeleteOptions{}))
	}
	return errors.Join(errs...)
}

func ours(l map[string]string) bool { return l[managedByLabel] == managedBy }

// Kubeconfig is the kubeconfig a manager's Kueue accepts for a worker: the server, its CA inline and a bearer token
// inline. Kueue refuses token files, exec plugins, auth providers, insecure TLS and CA files.
func Kubeconfig(server string, ca, token []byte) []byte {
	return fmt.Appendf(nil, `apiVersion: v1
kind: Config
clusters:
- name: worker
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: multikueue
  user:
    token: %s
contexts:
- name: worker
  context:
    cluster: worker
    user: multikueue
current-context: worker
`, server, base64.StdEncoding.EncodeToString(ca), token)
}

// PutSecret writes the kubeconfig into the manager's Secret name (in KueueNamespace), creating it when missing.
func PutSecret(ctx context.Context, core corev1client.CoreV1Interface, name string, kubeconfig []byte) error {
	if err := ensureNamespace(ctx, core); err != nil {
		return err
	}
	s, err := core.Secrets(KueueNamespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: KueueNamespace, Labels: labels()},
			Data: map[string][]byte{SecretKey: kubeconfig}}
		_, err = core.Secrets(KueueNamespace).Create(ctx, s, metav1.CreateOptions{})
	case err == nil:
		if bytes.Equal(s.Data[SecretKey], kubeconfig) && ours(s.Labels) {
			return nil
		}
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		s.Data[SecretKey] = kubeconfig
		// Written here from now on, so removed with the worker (DeleteSecret keeps Secrets it did not write).
		if s.Labels == nil {
			s.Labels = map[string]string{}
		}
		s.Labels[managedByLabel] = managedBy
		_, err = core.Secrets(KueueNamespace).Update(ctx, s, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("writing Secret %s/%s: %w", KueueNamespace, name, err)
	}
	return nil
}

// SecretKubeconfig is the kubeconfig in the manager's Secret; found is false when the Secret is gone or unnamed.
func SecretKubeconfig(ctx context.Context, core corev1client.CoreV1Interface, name string) (kubeconfig []byte, found bool, err error) {
	if name == "" {
		return nil, false, nil
	}
	s, err := core.Secrets(KueueNamespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading Secret %s/%s: %w", KueueNamespace, name, err)
	}
	return s.Data[SecretKey], true, nil
}

// DeleteSecret removes the manager's Secret if this package wrote it; one it never wrote (named by an imported
// MultiKueueCluster and since moved away from) is someone else's and stays.
func DeleteSecret(ctx context.Context, core corev1client.CoreV1Interface, name string) error {
	if name == "" {
		return nil
	}
	return deleteSecret(ctx, core, name)
}

func deleteSecret(ctx context.Context, core corev1client.CoreV1Interface, name string) error {
	s, err := core.Secrets(KueueNamespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && !ours(s.Labels)) {
		return nil
	}
	if err == nil {
		err = core.Secrets(KueueNamespace).Delete(ctx, name, metav1.DeleteOptions{})
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting Secret %s/%s: %w", KueueNamespace, name, err)
	}
	return nil
}

// Rules are the rights the manager's Kueue uses on a worker (read at Kueue v0.17.0). Kueue's own script,
// create-multikueue-kubeconfig.sh, grants create, delete, get, list and watch on the jobs and on workloads, which
// is not enough: the manager updates a remote Workload to remove its resource-in-use finalizer before deleting it,
// and on elastic or priority changes (pkg/controller/admissionchecks/multikueue/workload.go), so a worker whose
// Workloads finished would keep them. update and patch on workloads are added for that. The manager watches every
// kind of every integration it enables on each worker (multikueuecluster.go), so list and watch are granted on each
// kind the script names; RayJobs and RayClusters are what this provider sends.
func Rules() []rbacv1.PolicyRule {
	jobVerbs := []string{"create", "delete", "get", "list", "watch"}
	status := []string{"get"}
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads"}, Verbs: []string{"create", "delete", "get", "list", "watch", "update", "patch"}},
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads/status"}, Verbs: []string{"get", "patch", "update"}},
	}
	for _, k := range []struct {
		group string
		kinds []string
	}{
		{"batch", []string{"jobs"}},
		{"", []string{"pods"}},
		{"jobset.x-k8s.io", []string{"jobsets"}},
		{"kubeflow.org", []string{"tfjobs", "paddlejobs", "pytorchjobs", "xgboostjobs", "mpijobs"}},
		{"ray.io", []string{"rayjobs", "rayclusters"}},
		{"workload.codeflare.dev", []string{"appwrappers"}},
	} {
		var st []string
		for _, r := range k.kinds {
			st = append(st, r+"/status")
		}
		rules = append(rules,
			rbacv1.PolicyRule{APIGroups: []string{k.group}, Resources: k.kinds, Verbs: jobVerbs},
			rbacv1.PolicyRule{APIGroups: []string{k.group}, Resources: st, Verbs: status})
	}
	return rules
}

// Matches reports whether a kubeconfig reaches server, trusting ca, with token: what its current context says,
// whatever it names its entries (Kueue's script and this package name them differently).
func Matches(kubeconfig []byte, server string, ca, token []byte) bool {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return false
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil {
		return false
	}
	cl, user := cfg.Clusters[ctx.Cluster], cfg.AuthInfos[ctx.AuthInfo]
	return cl != nil && user != nil && cl.Server == server && bytes.Equal(cl.CertificateAuthorityData, ca) && user.Token == string(token)
}

// Server is the API server a kubeconfig's current context reaches, "" when it names none.
func Server(kubeconfig []byte) string {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return ""
	}
	if ctx := cfg.Contexts[cfg.CurrentContext]; ctx != nil {
		if cl := cfg.Clusters[ctx.Cluster]; cl != nil {
			return cl.Server
		}
	}
	return ""
}

// CheckKubeconfig refuses what Kueue refuses in a worker's kubeconfig (validateKubeconfig and validateRestConfig in
// Kueue v0.17.0's multikueuecluster.go, reason InsecureKubeConfig), so that a plan says it before Kueue does.
func CheckKubeconfig(kubeconfig []byte) error {
	cfg, err := clientcmd.Load(kubeconfig)
	if err != nil {
		return fmt.Errorf("not a kubeconfig: %w", err)
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	if ctx == nil {
		return fmt.Errorf("current-context %q names no context", cfg.CurrentContext)
	}
	var refused []string
	if cl := cfg.Clusters[ctx.Cluster]; cl == nil {
		refused = append(refused, fmt.Sprintf("the context names no cluster %q", ctx.Cluster))
	} else {
		if cl.InsecureSkipTLSVerify {
			refused = append(refused, "insecure-skip-tls-verify")
		}
		if cl.CertificateAuthority != "" {
			refused = append(refused, "certificate-authority (a file path; use certificate-authority-data)")
		}
		if cl.Server == "" {
			refused = append(refused, "no server")
		}
	}
	if u := cfg.AuthInfos[ctx.AuthInfo]; u == nil {
		refused = append(refused, fmt.Sprintf("the context names no user %q", ctx.AuthInfo))
	} else {
		if u.TokenFile != "" {
			refused = append(refused, "tokenFile (use token)")
		}
		if u.Exec != nil {
			refused = append(refused, "exec (a credential plugin)")
		}
		if u.AuthProvider != nil {
			refused = append(refused, "auth-provider")
		}
		if u.Username != "" || u.Password != "" {
			refused = append(refused, "basic authentication (username and password)")
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("it uses %s; Kueue's MultiKueue accepts an inline token and inline CA data only", strings.Join(refused, ", "))
	}
	return nil
}
