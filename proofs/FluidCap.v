(** The fluid estimate of the cap a burst needs on a `collision` channel carrying steady load λ.
    With offered attempt rate G the goodput is aloha G = G e^(-2G); for 0 < λ < 1/(2e) the equation
    aloha G = λ has a low root (stable operating point) and exactly one root G_hi above 1/2 (beyond
    it goodput < λ and the backlog grows). Modelled threshold: a burst of B clients whose sleeps have
    mean c / k (k = 2 for full jitter) adds k·B/c to the offered rate, so it drains in the fluid model
    iff λ + k·B/c < G_hi, i.e. c > fluid_cap k B G_hi λ := k·B / (G_hi − λ).
    Backs analytic fluid cap (validation case fluid_cap). *)
From Coq Require Import Reals Lra.
From Coquelicot Require Import Coquelicot.
From Interval Require Import Tactic.
From Retrylab Require Import Aloha.
Open Scope R_scope.

Theorem fluid_upper_root_unique : forall lambda : R,
  0 < lambda < / (2 * exp 1) ->
  exists! G : R, 1 / 2 < G /\ aloha G = lambda.
Proof.
  intros lambda Hl.
  destruct (aloha_inverse_high_unique lambda ltac:(lra)) as [G [[HG HGl] Huniq]].
  assert (Hne : G <> 1 / 2).
  { intros ->. rewrite (proj1 (proj2 (aloha_max 0))) in HGl. lra. }
  exists G. split; [split; [lra | exact HGl] |].
  intros G' [HG' HG'l]. apply Huniq. split; [lra | exact HG'l].
Qed.

Definition fluid_cap (k B G_hi lambda : R) : R := k * B / (G_hi - lambda).

(** The upper root lies above the load itself, so the threshold is well defined and positive. *)
Lemma fluid_root_above_load : forall lambda G : R,
  0 < lambda < / (2 * exp 1) -> 1 / 2 < G -> lambda < G.
Proof.
  intros lambda G Hl HG. assert (/ (2 * exp 1) < 1 / 2) by interval. lra.
Qed.

Theorem fluid_cap_monotone : forall k lambda G_hi B1 B2 : R,
  0 < k -> 0 < lambda < / (2 * exp 1) -> 1 / 2 < G_hi -> aloha G_hi = lambda ->
  B1 < B2 -> fluid_cap k B1 G_hi lambda < fluid_cap k B2 G_hi lambda.
Proof.
  intros k lambda G B1 B2 Hk Hl HG _ HB.
  pose proof (fluid_root_above_load lambda G Hl HG).
  unfold fluid_cap, Rdiv. apply Rmult_lt_compat_r.
  - apply Rinv_0_lt_compat. lra.
  - apply Rmult_lt_compat_l; lra.
Qed.

(** The drain criterion of the fluid model, restated: above the threshold cap, the offered rate
    λ + k·B/c stays below the upper root. *)
Theorem fluid_cap_drains : forall k lambda G_hi B c : R,
  0 < k -> 0 < B -> lambda < G_hi -> fluid_cap k B G_hi lambda < c ->
  lambda + k * B / c < G_hi.
Proof.
  intros k lambda G B c Hk HB HG Hc. unfold fluid_cap in Hc.
  assert (Hpos : 0 < k * B / (G - lambda)) by (apply Rdiv_lt_0_compat; nra).
  assert (Hc0 : 0 < c) by lra.
  assert (k * B < c * (G - lambda)).
  { apply (Rmult_lt_compat_r (G - lambda)) in Hc; [| lra].
    unfold Rdiv in Hc. rewrite Rmult_assoc, Rinv_l, Rmult_1_r in Hc by lra. lra. }
  apply (Rmult_lt_reg_r c); [lra |]. unfold Rdiv.
  rewrite Rmult_plus_distr_r, Rmult_assoc, Rinv_l, Rmult_1_r by lra. lra.
Qed.
