(** Pure ALOHA goodput S(G) = G e^(-2G): derivative, monotonicity, maximum, inverse branches.
    Backs analytic aloha goodput (validation case aloha_goodput). *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
From Retrylab Require Import Bounds.
Open Scope R_scope.

Definition aloha (G : R) : R := G * exp (-2 * G).

Theorem aloha_derivative : forall G : R,
  is_derive aloha G ((1 - 2 * G) * exp (-2 * G)).
Proof.
  intro G. unfold aloha. auto_derive; [exact I | ring].
Qed.

Lemma aloha_derivable : forall G : R,
  derivable_pt_lim aloha G ((1 - 2 * G) * exp (-2 * G)).
Proof. intro G. apply is_derive_Reals, aloha_derivative. Qed.

Lemma aloha_continuous : continuity aloha.
Proof.
  intro x. apply derivable_continuous_pt.
  exists ((1 - 2 * x) * exp (-2 * x)). apply aloha_derivable.
Qed.

Theorem aloha_increasing : forall x y : R,
  0 <= x -> x < y -> y <= 1 / 2 -> aloha x < aloha y.
Proof.
  intros x y Hx Hxy Hy.
  destruct (MVT_cor2 aloha (fun G => (1 - 2 * G) * exp (-2 * G)) x y Hxy)
    as [c [Hc Hcin]].
  { intros c _. apply aloha_derivable. }
  assert (0 < (1 - 2 * c) * exp (-2 * c) * (y - x)).
  { apply Rmult_lt_0_compat; [apply Rmult_lt_0_compat|]; [lra | apply exp_pos | lra]. }
  lra.
Qed.

Theorem aloha_decreasing : forall x y : R,
  1 / 2 <= x -> x < y -> aloha y < aloha x.
Proof.
  intros x y Hx Hxy.
  destruct (MVT_cor2 aloha (fun G => (1 - 2 * G) * exp (-2 * G)) x y Hxy)
    as [c [Hc Hcin]].
  { intros c _. apply aloha_derivable. }
  assert (0 < (2 * c - 1) * exp (-2 * c) * (y - x)).
  { apply Rmult_lt_0_compat; [apply Rmult_lt_0_compat|]; [lra | apply exp_pos | lra]. }
  lra.
Qed.

Lemma aloha_half : aloha (1 / 2) = / (2 * exp 1).
Proof.
  unfold aloha. replace (-2 * (1 / 2)) with (- (1)) by field.
  rewrite exp_Ropp. field. apply Rgt_not_eq, exp_pos.
Qed.

(** The maximum over all G is 1/(2e), reached at G = 1/2 (and only there). *)
Theorem aloha_max : forall G : R,
  aloha G <= aloha (1 / 2) /\ aloha (1 / 2) = / (2 * exp 1) /\ (G <> 1 / 2 -> aloha G < aloha (1 / 2)).
Proof.
  intro G.
  assert (Hs : G <> 1 / 2 -> aloha G < aloha (1 / 2)).
  { intro Hne.
    destruct (Rlt_or_le G 0) as [Hneg | Hpos].
    - assert (aloha G < 0).
      { unfold aloha. pose proof (exp_pos (-2 * G)). nra. }
      assert (0 < aloha (1 / 2)) by (unfold aloha; apply Rmult_lt_0_compat; [lra | apply exp_pos]).
      lra.
    - destruct (Rlt_or_le G (1 / 2)).
      + apply aloha_increasing; lra.
      + apply aloha_decreasing; lra. }
  split; [| split; [exact aloha_half | exact Hs]].
  destruct (Req_dec G (1 / 2)) as [-> | Hne]; [lra | left; auto].
Qed.

(** Certified bounds on the maximum 1/(2e) (from e in [2.7182818, 2.7182819], Bounds.v). *)
Theorem aloha_max_bounds : 0.18393 <= / (2 * exp 1) <= 0.18394.
Proof.
  pose proof e_bounds as He.
  destruct (inv_bounds (2 * 2.7182818) (2 * exp 1) (2 * 2.7182819) ltac:(lra) ltac:(lra)) as [H1 H2].
  assert (0.18393 <= / (2 * 2.7182819)).
  { apply (Rmult_le_reg_r (2 * 2.7182819)); [lra |]. rewrite Rinv_l by lra. lra. }
  assert (/ (2 * 2.7182818) <= 0.18394).
  { apply (Rmult_le_reg_r (2 * 2.7182818)); [lra |]. rewrite Rinv_l by lra. lra. }
  lra.
Qed.

(** At offered load G = 1 the goodput is e^(-2), certified to 5 digits (Bounds.v). *)
Theorem aloha_at_one : aloha 1 = exp (-2) /\ 0.13533 <= exp (-2) <= 0.13534.
Proof.
  split.
  - unfold aloha. rewrite Rmult_1_l. f_equal. ring.
  - pose proof e_bounds as He.
    assert (E : exp (-2) = / (exp 1 * exp 1)).
    { rewrite <- exp_plus, <- exp_Ropp. f_equal; try ring. }
    rewrite E.
    assert (Hsq : 2.7182818 * 2.7182818 <= exp 1 * exp 1 <= 2.7182819 * 2.7182819) by (split; nra).
    destruct (inv_bounds (2.7182818 * 2.7182818) _ _ ltac:(lra) Hsq) as [H1 H2].
    assert (0.13533 <= / (2.7182819 * 2.7182819)).
    { apply (Rmult_le_reg_r (2.7182819 * 2.7182819)); [lra |]. rewrite Rinv_l by lra. lra. }
    assert (/ (2.7182818 * 2.7182818) <= 0.13534).
    { apply (Rmult_le_reg_r (2.7182818 * 2.7182818)); [lra |]. rewrite Rinv_l by lra. lra. }
    lra.
Qed.

Lemma aloha_nonneg : forall G, 0 <= G -> 0 <= aloha G.
Proof. intros G HG. unfold aloha. pose proof (exp_pos (-2 * G)). nra. Qed.

(** The low branch of the inverse: for 0 <= S <= 1/(2e) exactly one G in [0, 1/2] has aloha G = S
    (what lambert_w0 computes: G = -W0(-2S)/2). *)
Theorem aloha_inverse_low_unique : forall S : R,
  0 <= S <= / (2 * exp 1) ->
  exists! G : R, 0 <= G <= 1 / 2 /\ aloha G = S.
Proof.
  intros S HS.
  assert (H0 : aloha 0 = 0) by (unfold aloha; ring).
  destruct (IVT_gen aloha 0 (1 / 2) S aloha_continuous) as [G [HG HGS]].
  { rewrite H0, aloha_half, Rmin_left, Rmax_right; try lra.
    all: left; apply Rinv_0_lt_compat; pose proof (exp_pos 1); lra. }
  rewrite Rmin_left, Rmax_right in HG by lra.
  exists G. split; [split; assumption |].
  intros G' [HG' HG'S].
  destruct (Rtotal_order G G') as [Hlt | [Heq | Hgt]]; [| exact Heq |].
  - pose proof (aloha_increasing G G' ltac:(lra) Hlt ltac:(lra)). lra.
  - pose proof (aloha_increasing G' G ltac:(lra) Hgt ltac:(lra)). lra.
Qed.

(** e^G >= 1 + G > G gives e^(2G) > G^2, so aloha G < 1/G: the goodput tends to 0. *)
Lemma aloha_upper : forall G, 0 < G -> aloha G < / G.
Proof.
  intros G HG. unfold aloha.
  pose proof (exp_ineq1_le G) as H1.
  assert (He : exp (-2 * G) = / (exp G * exp G)).
  { rewrite <- exp_plus, <- exp_Ropp. f_equal. ring. }
  rewrite He. pose proof (exp_pos G).
  assert (G * G < exp G * exp G) by nra.
  apply (Rmult_lt_reg_l (exp G * exp G)); [nra |].
  field_simplify; try lra. 
  apply (Rmult_lt_reg_r G); [lra |]. field_simplify; nra.
Qed.

(** The high branch of the inverse: for 0 < S <= 1/(2e) exactly one G >= 1/2 has aloha G = S
    (what lambert_wm1 computes: G = -W_{-1}(-2S)/2). *)
Theorem aloha_inverse_high_unique : forall S : R,
  0 < S <= / (2 * exp 1) ->
  exists! G : R, 1 / 2 <= G /\ aloha G = S.
Proof.
  intros S HS.
  assert (He : 2 < exp 1) by (pose proof e_bounds; lra).
  assert (Hbig : 1 / 2 < / S).
  { apply (Rmult_lt_reg_l S); [lra |]. rewrite Rinv_r by lra.
    assert (S * (2 * exp 1) <= 1).
    { apply (Rmult_le_reg_r (/ (2 * exp 1))); [apply Rinv_0_lt_compat; lra |].
      rewrite Rmult_assoc, Rinv_r, Rmult_1_r, Rmult_1_l by lra. lra. }
    nra. }
  pose proof (aloha_upper (/ S) ltac:(apply Rinv_0_lt_compat; lra)) as Hup.
  rewrite Rinv_inv in Hup.
  destruct (IVT_gen aloha (1 / 2) (/ S) S aloha_continuous) as [G [HG HGS]].
  { rewrite aloha_half, Rmin_right, Rmax_left; try lra; rewrite <- aloha_half; lra. }
  rewrite Rmin_left, Rmax_right in HG by lra.
  exists G. split; [split; [lra | assumption] |].
  intros G' [HG' HG'S].
  destruct (Rtotal_order G G') as [Hlt | [Heq | Hgt]]; [| exact Heq |].
  - pose proof (aloha_decreasing G G' ltac:(lra) Hlt). lra.
  - pose proof (aloha_decreasing G' G ltac:(lra) Hgt). lra.
Qed.
