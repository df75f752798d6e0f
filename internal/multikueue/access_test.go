package multikueue

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// fillsTokens plays Kubernetes' token controller: a service-account-token Secret gets its token when created.
func fillsTokens(cs *fake.Clientset, token string) {
	cs.PrependReactor("create", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s := a.(k8stesting.CreateAction).GetObject().(*corev1.Secret)
		if s.Type == corev1.SecretTypeServiceAccountToken {
			s.Data = map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token)}
		}
		return false, nil, nil
	})
}

func TestEnsureAndRemove(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs := fake.NewClientset(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "someone-else", Namespace: KueueNamespace}})
	fillsTokens(cs, "tok-1")
	c := Clients{Core: cs.CoreV1(), RBAC: cs.RbacV1()}
	w := Worker{ServiceAccount: "multikueue-sa"}
	tok, err := Ensure(ctx, c, w)
	if err != nil || string(tok) != "tok-1" {
		t.Fatalf("Ensure = %q, %v; want tok-1", tok, err)
	}
	// Twice is the same: an update after a partial create finishes it.
	if tok, err = Ensure(ctx, c, w); err != nil || string(tok) != "tok-1" {
		t.Fatalf("second Ensure = %q, %v", tok, err)
	}
	role, err := cs.RbacV1().ClusterRoles().Get(ctx, "multikueue-sa-role", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var workloadVerbs []string
	for _, r := range role.Rules {
		if slices.Contains(r.Resources, "workloads") {
			workloadVerbs = r.Verbs
		}
	}
	for _, v := range []string{"update", "patch", "delete", "watch"} {
		if !slices.Contains(workloadVerbs, v) {
			t.Errorf("workloads verbs %v lack %q, which Kueue's manager uses on workers", workloadVerbs, v)
		}
	}
	b, err := cs.RbacV1().ClusterRoleBindings().Get(ctx, "multikueue-sa-crb", metav1.GetOptions{})
	if err != nil || b.Subjects[0].Name != "multikueue-sa" || b.Subjects[0].Namespace != KueueNamespace {
		t.Errorf("binding = %+v, %v", b, err)
	}
	if err := Remove(ctx, c, w); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ServiceAccounts(KueueNamespace).Get(ctx, "multikueue-sa", metav1.GetOptions{}); err == nil {
		t.Error("the ServiceAccount is still there after Remove")
	}
	if _, err := cs.CoreV1().ServiceAccounts(KueueNamespace).Get(ctx, "someone-else", metav1.GetOptions{}); err != nil {
		t.Errorf("Remove deleted a ServiceAccount it did not make: %v", err)
	}
}

// Two managers that reach one worker as the same ServiceAccount: the objects stay until the last one goes.
func TestRemoveKeepsSharedServiceAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs := fake.NewClientset()
	fillsTokens(cs, "tok-1")
	c := Clients{Core: cs.CoreV1(), RBAC: cs.RbacV1()}
	a := Worker{ServiceAccount: "multikueue-sa", User: "projects/p/locations/l/clusters/a/multiKueueClusters/w"}
	b := Worker{ServiceAccount: "multikueue-sa", User: "projects/p/locations/l/clusters/b/multiKueueClusters/w"}
	for _, w := range []Worker{a, b, a} {
		if _, err := Ensure(ctx, c, w); err != nil {
			t.Fatal(err)
		}
	}
	users := func() string {
		sa, err := cs.CoreV1().ServiceAccounts(KueueNamespace).Get(ctx, "multikueue-sa", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return "(gone)"
		}
		if err != nil {
			t.Fatal(err)
		}
		return sa.Annotations[usersAnnotation]
	}
	if diff := cmp.Diff(a.User+","+b.User, users()); diff != "" {
		t.Errorf("users after both Ensure (-want +got):\n%s", diff)
	}
	if err := Remove(ctx, c, a); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.User, users()); diff != "" {
		t.Errorf("users after a's Remove (-want +got):\n%s", diff)
	}
	if tok, err := Token(ctx, c.Core, b); err != nil || string(tok) != "tok-1" {
		t.Errorf("b's token after a's Remove = %q, %v; want it kept", tok, err)
	}
	if ok, err := Granted(ctx, c.RBAC, b); !ok || err != nil {
		t.Errorf("b's rights after a's Remove = %v, %v; want them kept", ok, err)
	}
	if err := Remove(ctx, c, b); err != nil {
		t.Fatal(err)
	}
	if got := users(); got != "(gone)" {
		t.Errorf("the ServiceAccount stayed after its last user's Remove (users %q)", got)
	}
	if _, err := cs.RbacV1().ClusterRoles().Get(ctx, "multikueue-sa-role", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ClusterRole stayed after the last user's Remove: %v", err)
	}
}

// scriptRole is the ClusterRole Kueue's create-multikueue-kubeconfig.sh makes (v0.17.0): no update or patch on
// workloads, no Ray kinds.
func scriptRole() *rbacv1.ClusterRole {
	jobVerbs := []string{"create", "delete", "get", "list", "watch"}
	return &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa-role"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"batch"}, Resources: []string{"jobs"}, Verbs: jobVerbs},
		{APIGroups: []string{"batch"}, Resources: []string{"jobs/status"}, Verbs: []string{"get"}},
		{APIGroups: []string{"jobset.x-k8s.io"}, Resources: []string{"jobsets"}, Verbs: jobVerbs},
		{APIGroups: []string{"jobset.x-k8s.io"}, Resources: []string{"jobsets/status"}, Verbs: []string{"get"}},
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads"}, Verbs: jobVerbs},
		{APIGroups: []string{"kueue.x-k8s.io"}, Resources: []string{"workloads/status"}, Verbs: []string{"get", "patch", "update"}},
	}}
}

func scriptBinding(role string) *rbacv1.ClusterRoleBinding {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa-crb"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "multikueue-sa", Namespace: KueueNamespace}}}
}

// A worker set up by Kueue's script is found by its names, seen as lacking rights, and repaired and adopted by Ensure
// without a new token.
func TestEnsureAdoptsScriptWorker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs := fake.NewClientset(
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa", Namespace: KueueNamespace}},
		scriptRole(), scriptBinding("multikueue-sa-role"),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa", Namespace: KueueNamespace,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "multikueue-sa"}},
			Type: corev1.SecretTypeServiceAccountToken, Data: map[string][]byte{corev1.ServiceAccountTokenKey: []byte("script-token")}},
	)
	c := Clients{Core: cs.CoreV1(), RBAC: cs.RbacV1()}
	w := Worker{ServiceAccount: "multikueue-sa"}
	if tok, err := Token(ctx, c.Core, w); err != nil || string(tok) != "script-token" {
		t.Fatalf("Token = %q, %v; want the script's token", tok, err)
	}
	if ok, err := Granted(ctx, c.RBAC, w); err != nil || ok {
		t.Fatalf("Granted = %v, %v; want false for the script's role", ok, err)
	}
	tok, err := Ensure(ctx, c, w)
	if err != nil || string(tok) != "script-token" {
		t.Fatalf("Ensure = %q, %v; want the script's token kept", tok, err)
	}
	if ok, err := Granted(ctx, c.RBAC, w); err != nil || !ok {
		t.Fatalf("Granted after Ensure = %v, %v", ok, err)
	}
	if err := Remove(ctx, c, w); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoles().Get(ctx, "multikueue-sa-role", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the adopted ClusterRole survived Remove: %v", err)
	}
}

// A token Secret signed for an earlier ServiceAccount of the same name (the worker moved away and back) opens
// nothing: Ensure makes it again, bound to the ServiceAccount's UID, and returns the new token.
func TestEnsureReplacesTokenOfEarlierServiceAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs := fake.NewClientset(
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa", Namespace: KueueNamespace, UID: "uid-2"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa", Namespace: KueueNamespace, UID: "secret-1",
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "multikueue-sa", corev1.ServiceAccountUIDKey: "uid-1"}},
			Type: corev1.SecretTypeServiceAccountToken, Data: map[string][]byte{corev1.ServiceAccountTokenKey: []byte("tok-1")}},
	)
	fillsTokens(cs, "tok-2")
	w := Worker{ServiceAccount: "multikueue-sa"}
	if tok, err := Token(ctx, cs.CoreV1(), w); err != nil || tok != nil {
		t.Fatalf("Token = %q, %v; want none: the Secret is another ServiceAccount's", tok, err)
	}
	tok, err := Ensure(ctx, Clients{Core: cs.CoreV1(), RBAC: cs.RbacV1()}, w)
	if err != nil || string(tok) != "tok-2" {
		t.Fatalf("Ensure = %q, %v; want tok-2", tok, err)
	}
	wantBoundTo(t, cs, "uid-2")
}

// The token controller deletes a token Secret whose ServiceAccount it cannot find (its cache may lag the API
// server): Ensure makes the Secret again instead of waiting for a token that cannot come.
func TestEnsureMakesDeletedTokenSecretAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs := fake.NewClientset()
	fillsTokens(cs, "tok-1")
	creates := 0
	cs.PrependReactor("create", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		creates++
		if creates == 1 {
			return true, a.(k8stesting.CreateAction).GetObject(), nil // created, and deleted at once
		}
		return false, nil, nil
	})
	tok, err := Ensure(ctx, Clients{Core: cs.CoreV1(), RBAC: cs.RbacV1()}, Worker{ServiceAccount: "multikueue-sa"})
	if err != nil || string(tok) != "tok-1" || creates != 2 {
		t.Fatalf("Ensure = %q, %v after %d creates; want tok-1 after 2", tok, err, creates)
	}
}

// A token Secret made before and not filled yet (by Kueue's script, or an apply whose wait was cut short) is bound to
// the ServiceAccount's UID too.
func TestEnsureBindsUnfilledSecret(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset(
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa", Namespace: KueueNamespace, UID: "uid-1"}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa", Namespace: KueueNamespace,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: "multikueue-sa"}}, Type: corev1.SecretTypeServiceAccountToken},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Ensure(ctx, Clients{Core: cs.CoreV1(), RBAC: cs.RbacV1()}, Worker{ServiceAccount: "multikueue-sa"}); err == nil {
		t.Fatal("Ensure returned a token nobody filled")
	}
	wantBoundTo(t, cs, "uid-1")
}

// wantBoundTo checks the UID the token Secret names.
func wantBoundTo(t *testing.T, cs *fake.Clientset, uid string) {
	t.Helper()
	s, err := cs.CoreV1().Secrets(KueueNamespace).Get(context.Background(), "multikueue-sa", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Annotations[corev1.ServiceAccountUIDKey]; got != uid {
		t.Errorf("token Secret bound to %q, want %s", got, uid)
	}
}

// A ServiceAccount removed while its token is awaited (another apply removing it) ends the wait with an error that
// says so, instead of making the Secret again until the timeout.
func TestEnsureStopsWhenServiceAccountGoes(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	cs.PrependReactor("create", "secrets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		// The other apply removes both at once: the Secret never shows.
		_ = cs.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("serviceaccounts"), KueueNamespace, "multikueue-sa")
		return true, a.(k8stesting.CreateAction).GetObject(), nil
	})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Ensure(ctx, Clients{Core: cs.CoreV1(), RBAC: cs.RbacV1()}, Worker{ServiceAccount: "multikueue-sa"})
	if err == nil || !strings.Contains(err.Error(), "was deleted while its token was awaited") {
		t.Fatalf("Ensure = %v; want the ServiceAccount named as deleted", err)
	}
}

func TestGranted(t *testing.T) {
	t.Parallel()
	full := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa-role"}, Rules: Rules()}
	wildcard := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "multikueue-sa-role"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}}
	named := full.DeepCopy()
	named.Rules[0].ResourceNames = []string{"one"}
	for name, tc := range map[string]struct {
		objs []runtime.Object
		want bool
	}{
		"ours":               {[]runtime.Object{full, scriptBinding("multikueue-sa-role")}, true},
		"wildcard":           {[]runtime.Object{wildcard, scriptBinding("multikueue-sa-role")}, true},
		"script's role":      {[]runtime.Object{scriptRole(), scriptBinding("multikueue-sa-role")}, false},
		"one resource named": {[]runtime.Object{named, scriptBinding("multikueue-sa-role")}, false},
		"bound elsewhere":    {[]runtime.Object{full, scriptBinding("view")}, false},
		"no binding":         {[]runtime.Object{full}, false},
		"no role":            {[]runtime.Object{scriptBinding("multikueue-sa-role")}, false},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := Granted(context.Background(), fake.NewClientset(tc.objs...).RbacV1(), Worker{ServiceAccount: "multikueue-sa"})
			if err != nil || got != tc.want {
				t.Errorf("Granted = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestKubeconfigMatches(t *testing.T) {
	t.Parallel()
	kc := Kubeconfig("https://127.0.0.1:6443", []byte("CA"), []byte("tok"))
	if err := CheckKubeconfig(kc); err != nil {
		t.Errorf("Kueue would refuse the kubeconfig made here: %v", err)
	}
	if Server(kc) != "https://127.0.0.1:6443" {
		t.Errorf("Server = %q", Server(kc))
	}
	for _, tc := range []struct {
		name, server, ca, token string
		want                    bool
	}{
		{"same", "https://127.0.0.1:6443", "CA", "tok", true},
		{"rotated token", "https://127.0.0.1:6443", "CA", "tok2", false},
		{"new CA", "https://127.0.0.1:6443", "CA2", "tok", false},
		{"moved", "https://127.0.0.1:7443", "CA", "tok", false},
	} {
		if got := Matches(kc, tc.server, []byte(tc.ca), []byte(tc.token)); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckKubeconfig(t *testing.T) {
	t.Parallel()
	const head = "apiVersion: v1\nkind: Config\ncurrent-context: w\ncontexts:\n- name: w\n  context: {cluster: c, user: u}\n"
	for _, tc := range []struct {
		name, cluster, user string
		want                []string
	}{
		{"token file", "server: https://h", "tokenFile: /t", []string{"tokenFile"}},
		{"exec", "server: https://h", "exec: {command: gke-gcloud-auth-plugin, apiVersion: client.authentication.k8s.io/v1beta1}", []string{"exec"}},
		{"insecure and CA file", "server: https://h\n    insecure-skip-tls-verify: true\n    certificate-authority: /ca.crt", "token: t", []string{"insecure-skip-tls-verify", "certificate-authority"}},
		{"basic auth", "server: https://h", "username: a\n    password: b", []string{"basic authentication"}},
		{"no server", "certificate-authority-data: Q0E=", "token: t", []string{"no server"}},
	} {
		kc := head + "clusters:\n- name: c\n  cluster:\n    " + tc.cluster + "\nusers:\n- name: u\n  user:\n    " + tc.user + "\n"
		err := CheckKubeconfig([]byte(kc))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		var missing []string
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				missing = append(missing, w)
			}
		}
		if diff := cmp.Diff([]string(nil), missing); diff != "" {
			t.Errorf("%s: %v does not name %v", tc.name, err, missing)
		}
	}
}

// TestEnsuredAccount: what Ensure would change on the ServiceAccount is its label and this manager's entry among the
// users; another manager's entry, or a label of someone else's, is not.
func TestEnsuredAccount(t *testing.T) {
	w := Worker{ServiceAccount: "multikueue-sa", User: "b"}
	sa := func(labels, annotations map[string]string) *corev1.ServiceAccount {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: w.ServiceAccount, Namespace: KueueNamespace, Labels: labels, Annotations: annotations}}
	}
	ours := map[string]string{managedByLabel: managedBy}
	for _, tc := range []struct {
		name       string
		have       *corev1.ServiceAccount
		wantChange bool
	}{
		{"as written", sa(ours, map[string]string{usersAnnotation: "b"}), false},
		{"another manager joined", sa(ours, map[string]string{usersAnnotation: "a,b"}), false},
		{"someone's label beside ours", sa(map[string]string{managedByLabel: managedBy, "team": "x"}, map[string]string{usersAnnotation: "b"}), false},
		{"label removed", sa(nil, map[string]string{usersAnnotation: "b"}), true},
		{"label changed", sa(map[string]string{managedByLabel: "helm"}, map[string]string{usersAnnotation: "b"}), true},
		{"this manager taken off the users", sa(ours, map[string]string{usersAnnotation: "a"}), true},
		{"users annotation removed", sa(ours, nil), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.have.DeepCopy()
			got := EnsuredAccount(tc.have, w)
			if diff := cmp.Diff(before, tc.have); diff != "" {
				t.Fatalf("EnsuredAccount changed its argument (-before +after):\n%s", diff)
			}
			if changed := cmp.Diff(tc.have, got) != ""; changed != tc.wantChange {
				t.Errorf("Ensure would change it: %v, want %v (%v)", changed, tc.wantChange, got.ObjectMeta)
			}
		})
	}
}
