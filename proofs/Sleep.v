(** The strategy sleeps of docs/models.md §2 (analytic/sleep.hpp): mean and quantile of full, equal and
    window jitter, equal = full with cap 1.5C, and where the exponential window reaches the cap.
    A sleep U(a, b) has density 1/(b − a) on [a, b]; its CDF on [a, b] is the integral of the
    density, F(t) = (t − a)/(b − a); its quantile is inf{t in [a, b] : F(t) >= q}.
    With w = w_k = min(c, b·2^(k−1)):  full U(0, w);  equal w/2 + U(0, w/2) = U(w/2, w);
    window U(0, W).  Backs analytic sleep (validation cases sleep_full, sleep_equal, sleep_window,
    sleep_nojitter, sleep_none). *)
From Coq Require Import Reals Lra Lia.
From Coquelicot Require Import Coquelicot.
Open Scope R_scope.

(** The window before retry k >= 1: w_k = min(c, b·2^(k−1)). *)
Definition window_width (b c : R) (k : nat) : R := Rmin c (b * 2 ^ (k - 1)).

Lemma is_RInt_poly1 : forall a b d : R,
  is_RInt (fun t => t * d) a b ((b ^ 2 - a ^ 2) / 2 * d).
Proof.
  intros a b d.
  assert (H : is_RInt (fun t => t * d) a b (minus (b ^ 2 / 2 * d) (a ^ 2 / 2 * d))).
  { apply (is_RInt_derive (V := R_CompleteNormedModule) (fun t => t ^ 2 / 2 * d)).
    - intros x _. auto_derive; [exact I | field].
    - intros x _. apply (ex_derive_continuous (V := R_NormedModule) (fun t => t * d)). auto_derive. exact I. }
  replace ((b ^ 2 - a ^ 2) / 2 * d) with (minus (b ^ 2 / 2 * d) (a ^ 2 / 2 * d))
    by (unfold minus, plus, opp; simpl; field). exact H.
Qed.

Lemma is_RInt_const1 : forall a b d : R, is_RInt (fun _ => d) a b ((b - a) * d).
Proof.
  intros a b d.
  assert (H := is_RInt_const a b d). unfold scal in H; simpl in H; unfold mult in H; simpl in H. exact H.
Qed.

(** Uniform law on [a, b]: mean (a+b)/2. *)
Lemma uniform_mean : forall a b, a < b ->
  is_RInt (fun t => t * / (b - a)) a b ((a + b) / 2).
Proof.
  intros a b Hab. replace ((a + b) / 2) with ((b ^ 2 - a ^ 2) / 2 * / (b - a)) by (field; lra).
  apply is_RInt_poly1.
Qed.

(** Uniform law on [a, b]: CDF F(t) = (t − a)/(b − a), the integral of the density from a to t. *)
Lemma uniform_cdf : forall a b t, a < b ->
  is_RInt (fun _ => / (b - a)) a t ((t - a) / (b - a)).
Proof. intros a b t Hab. unfold Rdiv. apply is_RInt_const1. Qed.

(** Uniform law on [a, b]: the quantile a + q(b − a) is inf{t in [a, b] : F(t) >= q}. *)
Lemma uniform_quantile : forall a b q, a < b -> 0 <= q <= 1 ->
  let x := a + q * (b - a) in
  a <= x <= b /\ (x - a) / (b - a) = q /\
  (forall t, a <= t <= b -> (q <= (t - a) / (b - a) <-> x <= t)).
Proof.
  intros a b q Hab Hq x. unfold x. split; [split; nra | split; [field; lra |]].
  intros t Ht. split; intro H.
  - apply (Rmult_le_compat_r (b - a)) in H; [| lra].
    unfold Rdiv in H. rewrite Rmult_assoc, Rinv_l, Rmult_1_r in H by lra. lra.
  - apply (Rmult_le_reg_r (b - a)); [lra |]. unfold Rdiv.
    rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. lra.
Qed.

(** full jitter U(0, w): mean w/2. *)
Theorem full_mean : forall w, 0 < w -> is_RInt (fun t => t * / w) 0 w (w / 2).
Proof.
  intros w Hw. pose proof (uniform_mean 0 w Hw) as H.
  rewrite Rminus_0_r, Rplus_0_l in H. exact H.
Qed.

(** full jitter U(0, w): F(t) = t/w, quantile q·w. *)
Theorem full_quantile : forall w q, 0 < w -> 0 <= q <= 1 ->
  (forall t, is_RInt (fun _ => / w) 0 t (t / w)) /\
  0 <= q * w <= w /\ (q * w) / w = q /\
  (forall t, 0 <= t <= w -> (q <= t / w <-> q * w <= t)).
Proof.
  intros w q Hw Hq.
  destruct (uniform_quantile 0 w q Hw Hq) as [Hx [Hf Hinf]].
  rewrite !Rminus_0_r, !Rplus_0_l in *.
  split; [| split; [exact Hx | split; [exact Hf |]]].
  - intro t. pose proof (uniform_cdf 0 w t Hw) as H. rewrite !Rminus_0_r in H. exact H.
  - intros t Ht. specialize (Hinf t Ht). rewrite Rminus_0_r in Hinf. exact Hinf.
Qed.

(** equal jitter w/2 + U(0, w/2) = U(w/2, w): mean 3w/4. *)
Theorem equal_mean : forall w, 0 < w -> is_RInt (fun t => t * / (w / 2)) (w / 2) w (3 * w / 4).
Proof.
  intros w Hw. pose proof (uniform_mean (w / 2) w ltac:(lra)) as H.
  replace (w - w / 2) with (w / 2) in H by field.
  replace ((w / 2 + w) / 2) with (3 * w / 4) in H by field. exact H.
Qed.

(** equal jitter: F(t) = 2t/w − 1 on [w/2, w], quantile (1+q)·w/2. *)
Theorem equal_quantile : forall w q, 0 < w -> 0 <= q <= 1 ->
  (forall t, is_RInt (fun _ => / (w / 2)) (w / 2) t (2 * t / w - 1)) /\
  w / 2 <= (1 + q) * w / 2 <= w /\ 2 * ((1 + q) * w / 2) / w - 1 = q /\
  (forall t, w / 2 <= t <= w -> (q <= 2 * t / w - 1 <-> (1 + q) * w / 2 <= t)).
Proof.
  intros w q Hw Hq.
  assert (Hab : w / 2 < w) by lra.
  destruct (uniform_quantile (w / 2) w q Hab Hq) as [Hx [Hf Hinf]].
  assert (E : forall t, (t - w / 2) / (w - w / 2) = 2 * t / w - 1) by (intro t; field; lra).
  assert (Ex : w / 2 + q * (w - w / 2) = (1 + q) * w / 2) by field.
  rewrite Ex in Hx, Hf, Hinf. rewrite E in Hf.
  split; [| split; [exact Hx | split; [exact Hf |]]].
  - intro t. rewrite <- E. replace (/ (w / 2)) with (/ (w - w / 2)) by (f_equal; field).
    apply uniform_cdf. exact Hab.
  - intros t Ht. rewrite <- E. apply Hinf, Ht.
Qed.

(** window U(0, W): mean W/2. *)
Theorem window_mean : forall W, 0 < W -> is_RInt (fun t => t * / W) 0 W (W / 2).
Proof. exact full_mean. Qed.

(** window U(0, W): quantile q·W. *)
Theorem window_quantile : forall W q, 0 < W -> 0 <= q <= 1 ->
  (forall t, is_RInt (fun _ => / W) 0 t (t / W)) /\
  0 <= q * W <= W /\ (q * W) / W = q /\
  (forall t, 0 <= t <= W -> (q <= t / W <-> q * W <= t)).
Proof. exact full_quantile. Qed.

(** Equal jitter with (b, C) has, for every k, the mean of full jitter with (1.5b, 1.5C):
    (3/4)·w_k(b, C) = (1/2)·w_k(1.5b, 1.5C); and the mean of full jitter with (b, 1.5C) once both are
    at their caps (b·2^(k−1) >= 1.5C), namely (1.5C)/2. *)
Theorem equal_full_mean : forall b C k,
  3 * window_width b C k / 4 = window_width (3 / 2 * b) (3 / 2 * C) k / 2 /\
  (0 <= C -> 3 / 2 * C <= b * 2 ^ (k - 1) ->
   3 * window_width b C k / 4 = window_width b (3 / 2 * C) k / 2 /\
   window_width b (3 / 2 * C) k / 2 = (3 / 2 * C) / 2).
Proof.
  intros b C k. unfold window_width.
  assert (E : forall x y, 3 * Rmin x y / 4 = Rmin (3 / 2 * x) (3 / 2 * y) / 2).
  { intros x y. unfold Rmin. destruct (Rle_dec x y), (Rle_dec (3 / 2 * x) (3 / 2 * y)); lra. }
  split.
  - rewrite E. f_equal. f_equal. ring.
  - intros HC H. rewrite Rmin_left by lra. rewrite Rmin_left by lra. split; field.
Qed.

Lemma ln2_pos : 0 < ln 2.
Proof. rewrite <- ln_1. apply ln_increasing; lra. Qed.

Lemma le_iff_ln : forall x y, 0 < x -> 0 < y -> (x <= y <-> ln x <= ln y).
Proof.
  intros x y Hx Hy. split; intro H.
  - destruct H as [H | ->]; [left; apply ln_increasing; lra | right; reflexivity].
  - destruct (Rle_or_lt x y) as [Hle | Hlt]; [exact Hle |].
    pose proof (ln_increasing y x Hy Hlt). lra.
Qed.

(** The exponential window reaches the cap exactly from retry k0 + 1, where k0 = ⌈log2(c/b)⌉
    (characterised as the natural number with k0 − 1 < log2(c/b) <= k0): for k >= 1,
    w_k = c iff k >= k0 + 1, and w_k < c for 1 <= k <= k0. *)
Theorem window_reaches_cap : forall (b c : R) (k0 : nat),
  0 < b <= c ->
  INR k0 - 1 < ln (c / b) / ln 2 <= INR k0 ->
  forall k : nat, (1 <= k)%nat ->
  (window_width b c k = c <-> (k0 + 1 <= k)%nat) /\
  ((k <= k0)%nat -> window_width b c k < c).
Proof.
  intros b c k0 [Hb Hbc] [Hlo Hhi] k Hk.
  pose proof ln2_pos as Hl2.
  assert (Hpow : 0 < 2 ^ (k - 1)) by (apply pow_lt; lra).
  assert (Hcap : window_width b c k = c <-> c <= b * 2 ^ (k - 1)).
  { unfold window_width, Rmin. destruct (Rle_dec c (b * 2 ^ (k - 1))); split; intro; lra. }
  assert (Hln : c <= b * 2 ^ (k - 1) <-> ln (c / b) / ln 2 <= INR (k - 1)).
  { rewrite (le_iff_ln c (b * 2 ^ (k - 1))) by nra.
    rewrite ln_mult, ln_pow, ln_div by lra.
    split; intro H.
    - apply (Rmult_le_reg_r (ln 2)); [lra |]. unfold Rdiv.
      rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra. lra.
    - apply (Rmult_le_compat_r (ln 2)) in H; [| lra]. unfold Rdiv in H.
      rewrite Rmult_assoc, Rinv_l, Rmult_1_r in H by lra. lra. }
  assert (Hnat : ln (c / b) / ln 2 <= INR (k - 1) <-> (k0 + 1 <= k)%nat).
  { split; intro H.
    - assert (INR k0 < INR (k - 1) + 1) by lra.
      rewrite <- S_INR in H0. apply INR_lt in H0. lia.
    - apply Rle_trans with (INR k0); [exact Hhi |]. apply le_INR. lia. }
  assert (Hiff : window_width b c k = c <-> (k0 + 1 <= k)%nat).
  { rewrite Hcap, Hln, Hnat. tauto. }
  split; [exact Hiff |].
  intro Hle. assert (Hne : window_width b c k <> c) by (rewrite Hiff; lia).
  assert (window_width b c k <= c) by apply Rmin_l. lra.
Qed.
