(** Certified numeric bounds without floating point: Taylor polynomials of exp with the Lagrange-type
    remainder bound exp x <= T_n(x) + exp x · x^(n+1)/(n+1)! (x >= 0), proved from derivatives, then
    evaluated in exact rational arithmetic (lra). Gives e in [2.7182818, 2.7182819] and
    ln 3 in [1.0986, 1.0987]. (Used instead of the Interval tactic, whose reflection relies on the
    primitive-float and primitive-integer axioms of the kernel; see README.md.) *)
From Coq Require Import Reals Lra Lia.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

Fixpoint term (n : nat) (x : R) : R :=
  match n with O => 1 | S m => term m x * x * / INR (S m) end.

Lemma INR_S_pos : forall m, 0 < INR (S m).
Proof. intro m. apply lt_0_INR. lia. Qed.

Lemma step_derive : forall (f : R -> R) (f' x c : R), is_derive f x f' ->
  is_derive (fun t => f t * t * c) x ((f' * x + f x) * c).
Proof.
  intros f f' x c H. auto_derive.
  - exists f'. exact H.
  - change (fun x0 : R => f x0) with f. rewrite (is_derive_unique _ _ _ H). ring.
Qed.

Lemma term_derive : forall m x, is_derive (term (S m)) x (term m x).
Proof.
  induction m as [| m IH]; intro x.
  - simpl. auto_derive; [exact I | simpl; field].
  - pose proof (step_derive (term (S m)) (term m x) x (/ INR (S (S m))) (IH x)) as H.
    replace (term (S m) x) with (term m x * x * / INR (S m)) in H by reflexivity.
    replace ((term m x * x + term m x * x * / INR (S m)) * / INR (S (S m))) with (term m x * x * / INR (S m)) in H.
    + exact H.
    + rewrite (S_INR (S m)). pose proof (INR_S_pos m). field. lra.
Qed.

Fixpoint taylor (n : nat) (x : R) : R :=
  match n with O => 1 | S m => taylor m x + term (S m) x end.

Lemma plus_derive : forall (f g : R -> R) (f' g' x : R), is_derive f x f' -> is_derive g x g' ->
  is_derive (fun t => f t + g t) x (f' + g').
Proof. intros f g f' g' x Hf Hg. exact (is_derive_plus f g x f' g' Hf Hg). Qed.

Lemma taylor_derive : forall m x, is_derive (taylor (S m)) x (taylor m x).
Proof.
  induction m as [| m IH]; intro x.
  - simpl. auto_derive; [exact I | simpl; field].
  - change (taylor (S (S m))) with (fun t => taylor (S m) t + term (S (S m)) t).
    pose proof (term_derive (S m) x) as Ht.
    exact (plus_derive _ _ _ _ x (IH x) Ht).
Qed.

Lemma term_nonneg : forall n x, 0 <= x -> 0 <= term n x.
Proof.
  induction n as [| n IH]; intros x Hx; simpl; [lra |].
  apply Rmult_le_pos; [apply Rmult_le_pos; [apply IH, Hx | exact Hx] |].
  left. apply Rinv_0_lt_compat, INR_S_pos.
Qed.

Lemma term_S_0 : forall n, term (S n) 0 = 0.
Proof. intro n. simpl term. ring. Qed.

Lemma taylor_0 : forall n, taylor n 0 = 1.
Proof. induction n as [| n IH]; simpl; [reflexivity | rewrite IH; ring]. Qed.

(** f(0) <= f(x) for x >= 0 when f' >= 0 on [0, x]. *)
Lemma nonneg_derive_mono : forall (f f' : R -> R) x, 0 <= x ->
  (forall t, 0 <= t <= x -> is_derive f t (f' t)) -> (forall t, 0 <= t <= x -> 0 <= f' t) ->
  f 0 <= f x.
Proof.
  intros f f' x Hx Hd Hp. destruct Hx as [Hx | <-]; [| lra].
  destruct (MVT_cor2 f f' 0 x Hx) as [c [Hc Hcin]].
  - intros c Hc. apply is_derive_Reals, Hd, Hc.
  - pose proof (Hp c ltac:(lra)). nra.
Qed.

Lemma minus_derive : forall (f g : R -> R) (f' g' x : R), is_derive f x f' -> is_derive g x g' ->
  is_derive (fun t => f t - g t) x (f' - g').
Proof. intros f g f' g' x Hf Hg. exact (is_derive_minus f g x f' g' Hf Hg). Qed.

Lemma exp_derive : forall x, is_derive exp x (exp x).
Proof. intro x. auto_derive; [exact I | ring]. Qed.

Lemma exp_mult_derive : forall (f : R -> R) (f' x : R), is_derive f x f' ->
  is_derive (fun t => exp t * f t) x (exp x * f x + exp x * f').
Proof.
  intros f f' x H. auto_derive.
  - exists f'. exact H.
  - change (fun x0 : R => f x0) with f. rewrite (is_derive_unique _ _ _ H). ring.
Qed.

Lemma taylor_le_exp : forall n x, 0 <= x -> taylor n x <= exp x.
Proof.
  induction n as [| n IH]; intros x Hx.
  - simpl. pose proof (exp_ineq1_le x). lra.
  - pose proof (nonneg_derive_mono (fun t => exp t - taylor (S n) t) (fun t => exp t - taylor n t) x Hx) as H.
    cbv beta in H. rewrite exp_0, taylor_0 in H.
    assert (0 <= exp x - taylor (S n) x); [| lra].
    replace 0 with (1 - 1) by ring. apply H.
    + intros t _. apply minus_derive; [apply exp_derive | apply taylor_derive].
    + intros t Ht. pose proof (IH t (proj1 Ht)). lra.
Qed.

(** exp x <= taylor n x + exp x · term (n+1) x for x >= 0 (Lagrange remainder bound). *)
Lemma exp_le_taylor : forall n x, 0 <= x -> exp x <= taylor n x + exp x * term (S n) x.
Proof.
  induction n as [| n IH]; intros x Hx.
  - set (g := fun t => 1 + exp t * t - exp t).
    pose proof (nonneg_derive_mono g (fun t => exp t * t) x Hx) as H.
    assert (Hg0 : g 0 = 0) by (unfold g; rewrite exp_0; ring).
    assert (0 <= g x); [| unfold g in *; simpl taylor; simpl term; replace (1 * x * / 1) with x by field; lra].
    rewrite <- Hg0. apply H.
    + intros t _. unfold g. auto_derive; [exact I | ring].
    + intros t Ht. pose proof (exp_pos t). nra.
  - set (g := fun t => taylor (S n) t + exp t * term (S (S n)) t - exp t).
    set (g' := fun t => taylor n t + (exp t * term (S (S n)) t + exp t * term (S n) t) - exp t).
    pose proof (nonneg_derive_mono g g' x Hx) as H.
    assert (Hg0 : g 0 = 0).
    { unfold g. rewrite taylor_0, exp_0, term_S_0. ring. }
    assert (0 <= g x); [| unfold g in *; lra].
    rewrite <- Hg0. apply H.
    + intros t _. unfold g, g'. apply minus_derive; [apply plus_derive |].
      * apply taylor_derive.
      * assert (Hm : is_derive (fun t => exp t * term (S (S n)) t) t (exp t * term (S (S n)) t + exp t * term (S n) t)).
        { pose proof (exp_mult_derive _ _ t (term_derive (S n) t)) as Ht. exact Ht. }
        exact Hm.
      * apply exp_derive.
    + intros t Ht. unfold g'. pose proof (IH t (proj1 Ht)).
      pose proof (exp_pos t). pose proof (term_nonneg (S (S n)) t (proj1 Ht)).
      assert (0 <= exp t * term (S (S n)) t) by nra. lra.
Qed.

Theorem e_bounds : 2.7182818 <= exp 1 <= 2.7182819.
Proof.
  pose proof (taylor_le_exp 10 1 ltac:(lra)) as Hlo.
  pose proof (exp_le_taylor 10 1 ltac:(lra)) as Hhi.
  assert (Ht : taylor 10 1 = 9864101 / 3628800) by (simpl; field).
  assert (Hr : term 11 1 = 1 / 39916800) by (simpl; field).
  rewrite Ht in Hlo, Hhi. rewrite Hr in Hhi. split; lra.
Qed.

Theorem ln3_bounds : 1.0986 <= ln 3 <= 1.0987.
Proof.
  pose proof (exp_le_taylor 12 1.0986 ltac:(lra)) as Hhi.
  pose proof (taylor_le_exp 12 1.0987 ltac:(lra)) as Hlo.
  assert (Ht : taylor 12 1.0986 <= 2.99997) by (simpl; lra).
  assert (Hr : term 13 1.0986 <= 0.000000001) by (simpl; lra).
  assert (Ht2 : 3.0002 <= taylor 12 1.0987) by (simpl; lra).
  pose proof (exp_pos 1.0986).
  assert (E1 : exp 1.0986 <= 3) by nra.
  assert (E2 : 3 <= exp 1.0987) by lra.
  split.
  - rewrite <- (ln_exp 1.0986). apply ln_le; [apply exp_pos | exact E1].
  - rewrite <- (ln_exp 1.0987). apply ln_le; [lra | exact E2].
Qed.

Lemma inv_bounds : forall L x U, 0 < L -> L <= x <= U -> / U <= / x <= / L.
Proof.
  intros L x U HL [H1 H2]. split; apply Rinv_le_contravar; lra.
Qed.
