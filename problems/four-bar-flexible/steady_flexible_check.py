#!/usr/bin/env python3
"""The coupler's and rocker's steady periodic bending as flexible beams (docs/four-bar-flexible.md).

python3 problems/four-bar-flexible/steady_flexible_check.py [--design D1 D2 D3] [--modulus E]
    [--damping MU] [--modes J] [--samples K] [--elements N] [--no-axial] [--table]
    [--flexible-crank [--harmonics H]] [--simulator SAO [--tolerance T]] [--optimum]

(numpy: Debian's /usr/bin/python3 with python3-numpy, scripts/bootstrap.) Defaults: the rigid
optimum (0.034451, 0.022871, 0.017822) m, E = 6.895e10 Pa, MU = 2e-4 s, 48 modes, 800 samples.

Independent of the simulator: coupler and rocker are pinned-pinned Euler-Bernoulli beams whose
pins follow the rigid mechanism (closed-form positions of rigid_reference.py, differentiated
spectrally over one period of the crank at 10 pi rad/s). In the frame of its chord, a link's
deflection w(s, t) obeys

    rho A (w_tt - omega^2 w) + E I w_ssss - (N w_s)_s = -rho A (a_P . n + alpha s)

(the transverse acceleration of its rigid motion, linear along the link from its pin P; omega,
alpha its angular velocity and acceleration; N(s, t) the axial force of the rigid motion, from
the pin force at B, tension positive: its geometric stiffness, with --no-axial left out together
with the omega^2 term). Modal expansion in the J sine modes of the pinned-pinned beam, with the
stiffness-proportional damping of the study (the bending forces of the deformation rates times
MU, modal damping ratio MU omega_j / 2), solved for the steady periodic response by harmonic
balance on K samples of one period (each harmonic through the modes' transfer functions; the
time-varying N and omega^2 by a fixed-point iteration on the products): no start-up, no
transient. The bending moment M = -E I (w_ss + MU w_sst) (rigid_reference.py's sign, the damping's
part included as in the simulator's moments) at the nodes s = k L / 6.

The rigid value: the same load on the beam without inertia (closed form, M'' = -q), which is
rigid_reference.py's moment (printed side by side, from its Newton-Euler pin forces).

With --elements N the same steady problem is also solved on N elements discretised as the
simulator's beams (simulators/multibody/beam.hpp: cubic bending stiffness, the translations'
mass of linear interpolation, the section's rotary inertia rho I h / 2 on each node's rotation,
the chord's geometric stiffness N / h, the moment at a node the mean of its elements' end
moments): what six elements change against the continuum.

With --flexible-crank the crank is flexible too (flexible_crank(): a clamped-free beam loaded
by the coupler's pin force, the mechanism closed around its deflected tip). With --simulator
SAO, `SAO evaluate` of flexible.json at the same design, modulus and damping (the crank at
1000 E unless --flexible-crank) is printed beside the check, and with --tolerance T the script
fails unless each link's amplification is within T of the check's (on --elements elements).
With --optimum it iterates the design to the check's own fully stressed one.

Prints, for each link and model, the peak |M| over the seed's 201 points of [0.3, 0.5] s at every
node, relative to the rigid peak of the link (the largest over its nodes), and the amplification
of the link's peak (dynamic peak over rigid peak). With --table: one Markdown row per link.
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rigid_reference  # noqa: E402

L2, L3, L4 = rigid_reference.L2, rigid_reference.L3, rigid_reference.L4
RHO, OMEGA = rigid_reference.RHO, rigid_reference.OMEGA
PERIOD = 2 * math.pi / OMEGA  # 0.2 s
E = 6.895e10
NODES = 7  # nodes at sixths of each link


def spectral_derivative(values, order):
    """d^order/dt^order of a periodic sampled function over one period (FFT)."""
    k = len(values)
    n = np.fft.fftfreq(k, d=1.0 / k)
    if k % 2 == 0:
        n[k // 2] = 0.0  # the Nyquist term has no well-defined derivative
    factor = (2j * math.pi * n / PERIOD) ** order
    factor = factor.reshape((k,) + (1,) * (np.ndim(values) - 1))  # along the first axis
    return np.real(np.fft.ifft(factor * np.fft.fft(values, axis=0), axis=0))


class Link:
    """The rigid motion of one pinned link over one period: pin P, angle phi, their rates."""

    def __init__(self, name, length, diameter, pin, accel_pin, phi):
        self.name, self.length, self.d = name, length, diameter
        self.area = math.pi * diameter**2 / 4
        self.inertia = math.pi * diameter**4 / 64
        self.mu = RHO * self.area  # mass per length
        self.phi = phi
        self.omega = spectral_derivative(phi, 1)
        self.alpha = spectral_derivative(phi, 2)
        self.e = np.stack([np.cos(phi), np.sin(phi)], axis=1)
        self.n = np.stack([-np.sin(phi), np.cos(phi)], axis=1)
        self.a_pin = accel_pin
        self.a_n0 = np.sum(accel_pin * self.n, axis=1)  # transverse acceleration of P
        self.a_e0 = np.sum(accel_pin * self.e, axis=1)
        self.pin = pin
        self.tension_far = None  # N at s = L, set by mechanism()

    def load(self):
        """q(s, t) = q0 + q1 s: the transverse d'Alembert load per length (along n)."""
        return -self.mu * self.a_n0, -self.mu * self.alpha

    def axial(self, s):
        """N(s, t) of the rigid motion, tension positive ([time, s])."""
        s = np.asarray(s)[None, :]
        a_e0, w2 = self.a_e0[:, None], (self.omega**2)[:, None]
        far = self.tension_far[:, None]
        return far - self.mu * (a_e0 * (self.length - s) - w2 * (self.length**2 - s**2) / 2)

    def rigid_moment(self, s):
        """M(s, t) under the same load without inertia (pinned ends), rigid_reference's sign."""
        q0, q1 = (v[:, None] for v in self.load())
        s, L = np.asarray(s)[None, :], self.length
        return s * (q0 * L / 2 + q1 * L**2 / 6) - q0 * s**2 / 2 - q1 * s**3 / 6


def mechanism(design, samples, crank_tip=None):
    """Coupler and rocker in their rigid motion on `samples` points of one period from 0.3 s,
    the crank rigid or, with crank_tip, its tip (pin A) deflected by crank_tip(t) along the
    crank's normal."""
    t = 0.3 + PERIOD * np.arange(samples) / samples
    theta = OMEGA * t
    a = rigid_reference.L1 * np.stack([np.cos(theta), np.sin(theta)], axis=1)
    if crank_tip is not None:
        a += crank_tip[:, None] * np.stack([-np.sin(theta), np.cos(theta)], axis=1)
    poses = [rigid_reference.close_loop(tuple(ai)) for ai in a]
    a = np.array([p[0] for p in poses])
    phi2 = np.unwrap([p[2] for p in poses])
    phi3 = np.unwrap([p[3] for p in poses])
    accel_a = np.stack([spectral_derivative(a[:, i], 2) for i in range(2)], axis=1)
    coupler = Link("coupler", L2, design[1], a, accel_a, phi2)
    rocker = Link("rocker", L3, design[2], np.tile([L4, 0.0], (samples, 1)),
                  np.zeros((samples, 2)), phi3)
    pin_forces(coupler, rocker)
    return t, coupler, rocker


def pin_forces(coupler, rocker, bending=None):
    """The pin forces of coupler and rocker in their motion: the axial force at each one's far
    end (tension_far) and the force on the coupler at A (force_near). With `bending` ({link:
    bending_inertia(link)}) the inertia of their bending vibration too: a point s along the link,
    w off its chord, accelerates by (a_n0 + alpha s + w_tt - omega^2 w) along n and
    (a_e0 - omega^2 s - 2 omega w_t - alpha w) along e (to first order in w)."""
    zero = (0.0, 0.0, 0.0, 0.0)
    w = {link.name: (bending or {}).get(link.name, zero) for link in (coupler, rocker)}
    # F_B on the coupler (-F_B on the rocker): each link's moment about its other pin gives
    # F_B's component along its normal; two equations for F_B's two components. About its pin
    # P, the moment of the inertia at (s, w) is s (a . n) - w (a . e): the deflection adds
    # int s rho A w_tt ds - a_e0 int rho A w ds (the omega^2 s w terms cancel).
    w0, _, w0_tt, w1_tt = w["coupler"]
    fb_n2 = (coupler.mu * (coupler.a_n0 * L2 / 2 + coupler.alpha * L2**2 / 3)
             + (w1_tt - coupler.a_e0 * w0) / L2)
    fb_n3 = -(rocker.mu * rocker.alpha * L3**2 / 3 + w["rocker"][3] / L3)  # a_e0 = 0 at D
    matrix = np.stack([coupler.n, rocker.n], axis=1)  # [time, equation, component]
    f_b = np.linalg.solve(matrix, np.stack([fb_n2, fb_n3], axis=1)[:, :, None])[:, :, 0]
    coupler.tension_far = np.sum(f_b * coupler.e, axis=1)
    rocker.tension_far = -np.sum(f_b * rocker.e, axis=1)
    # The force on the coupler at A, from its Newton equation: F_A = int rho A a ds - F_B.
    a_g = (coupler.a_pin + (coupler.alpha * L2 / 2)[:, None] * coupler.n
           - (coupler.omega**2 * L2 / 2)[:, None] * coupler.e)
    _, w0_t, _, _ = w["coupler"]
    along_n = np.asarray(w0_tt - coupler.omega**2 * w0)
    along_e = np.asarray(-2 * coupler.omega * w0_t - coupler.alpha * w0)
    deflected = along_n[..., None] * coupler.n + along_e[..., None] * coupler.e
    coupler.force_near = coupler.mu * L2 * a_g + deflected - f_b


def bending_inertia(link, modulus, damping, modes):
    """int rho A w ds, its first and second time derivatives, and int s rho A w_tt ds of the
    link's steady bending (modal_solution)."""
    eta = modal_solution(link, modulus, damping, modes, True)
    j = np.arange(1, modes + 1)
    L = link.length
    area = link.mu * L * (1 - (-1.0) ** j) / (j * math.pi)  # rho A int sin(k_j s) ds
    first = link.mu * L**2 * (-1.0) ** (j + 1) / (j * math.pi)  # rho A int s sin(k_j s) ds
    return (eta @ area, spectral_derivative(eta, 1) @ area, spectral_derivative(eta, 2) @ area,
            spectral_derivative(eta, 2) @ first)


def cantilever_modes(count):
    """beta_j L of the clamped-free beam: the roots of cos x cosh x = -1 (Newton)."""
    roots = []
    for j in range(1, count + 1):
        x = (2 * j - 1) * math.pi / 2
        for _ in range(50):
            x -= (math.cos(x) * math.cosh(x) + 1) / (
                math.cos(x) * math.sinh(x) - math.sin(x) * math.cosh(x))
        roots.append(x)
    return np.array(roots)


def flexible_crank(design, samples, modulus, damping, modes=6, harmonics=40, feedback=True,
                   axial=True):
    """The crank as a clamped-free Euler-Bernoulli beam (clamped in the driven hub, turning at
    10 pi rad/s: its rigid motion loads it only along its axis), loaded at its tip by the
    coupler's pin force, which follows the mechanism's motion with A so deflected. The steady
    periodic state by harmonic balance: the tip deflection's first `harmonics` harmonics of the
    crank speed are the unknowns of a Newton iteration (Jacobian by differences), since the
    coupler's inertia on the crank's tip makes a plain fixed-point iteration diverge. Returns the
    mechanism (as mechanism()), the crank's root moment M(0, t), the pin force across the crank
    P(t) (its rigid value P L1) and the tip deflection. With `feedback`, the pin force carries
    the inertia of the coupler's and rocker's bending vibration (12 modes each, pin_forces())
    too; with
    `axial`, the crank has the geometric stiffness of its axial force (the pin force along it
    and its own centripetal inertia) as the links have theirs."""
    L1 = rigid_reference.L1
    mu = RHO * math.pi * design[0] ** 2 / 4
    EI = modulus * math.pi * design[0] ** 4 / 64
    beta = cantilever_modes(modes) / L1
    sigma = ((np.cosh(beta * L1) + np.cos(beta * L1))
             / (np.sinh(beta * L1) + np.sin(beta * L1)))
    tip = (np.cosh(beta * L1) - np.cos(beta * L1)
           - sigma * (np.sinh(beta * L1) - np.sin(beta * L1)))  # phi_j(L1), int phi^2 = L1
    mass = np.diag(np.full(modes, mu * L1))
    stiffness = np.diag(EI * beta**4 * L1)
    # The crank's geometric stiffness: int N phi_i' phi_j' ds with its axial force N(s, t) =
    # N(L1, t) + rho A Omega^2 (L1^2 - s^2) / 2, less rho A Omega^2 int phi_i phi_j ds.
    xg, wg = np.polynomial.legendre.leggauss(48)
    s, ws = L1 * (xg + 1) / 2, wg * L1 / 2
    bs = np.outer(s, beta)
    slope = beta * (np.sinh(bs) + np.sin(bs) - sigma * (np.cosh(bs) - np.cos(bs)))
    slope_products = np.einsum("p,pi,pj->pij", ws, slope, slope)
    centrifugal = np.einsum("p,pij->ij", mu * OMEGA**2 * (L1**2 - s**2) / 2, slope_products)
    centrifugal -= mu * OMEGA**2 * mass / mu
    tip_products = np.sum(slope_products, axis=0)
    shape = np.cosh(bs) - np.cos(bs) - sigma * (np.sinh(bs) - np.sin(bs))
    first_moment = ws @ (s[:, None] * shape)  # int s phi_j ds

    def deflection(c):  # real Fourier coefficients -> samples
        spectrum = np.zeros(samples // 2 + 1, complex)
        spectrum[: harmonics + 1] = c[: harmonics + 1]
        spectrum[1: harmonics + 1] += 1j * c[harmonics + 1:]
        return np.fft.irfft(spectrum, samples)

    def respond(c):  # the crank's response to the pin force of the mechanism deflected by c
        t, coupler, rocker = mechanism(design, samples, deflection(c))
        if feedback:
            pin_forces(coupler, rocker, {link.name: bending_inertia(link, modulus, damping, 12)
                                         for link in (coupler, rocker)})
        theta = OMEGA * t
        normal = np.stack([-np.sin(theta), np.cos(theta)], axis=1)
        across = -np.sum(coupler.force_near * normal, axis=1)  # the force on the crank at A
        varying = None
        along = -(coupler.force_near[:, 0] * np.cos(theta)
                  + coupler.force_near[:, 1] * np.sin(theta))  # the crank's tension at A
        if axial:
            varying = along[:, None, None] * tip_products[None] + centrifugal[None]
        eta = harmonic_balance(mass, stiffness, damping, np.outer(across, tip), varying)
        spectrum = np.fft.rfft(eta @ tip)[: harmonics + 1]
        c_new = np.concatenate([spectrum.real, spectrum[1:].imag])
        # The root moment by the crank's equilibrium about O (the modal curvature at a clamped
        # root converges slowly: 0.55 % short with 6 modes for a tip load): the tip force's
        # moment at the deflected tip, less the bending vibration's inertia (the centripetal
        # forces pass through O).
        root = (across * L1 - (along if axial else 0.0) * (eta @ tip)
                - mu * spectral_derivative(eta, 2) @ first_moment)
        return c_new, (t, coupler, rocker), root, across

    c = np.zeros(2 * harmonics + 1)
    for _ in range(10):
        base = respond(c)
        residual = c - base[0]
        step = 1e-7  # m, against a tip deflection of about 1e-3 m
        jacobian = np.eye(len(c))
        for i in range(len(c)):
            shifted = c.copy()
            shifted[i] += step
            jacobian[:, i] -= (respond(shifted)[0] - base[0]) / step
        delta = np.linalg.solve(jacobian, residual)
        c -= delta
        if np.max(np.abs(delta)) < 1e-12:
            _, motion, root, across = respond(c)
            return motion, root, across, deflection(c)
    raise RuntimeError("flexible crank: the Newton iteration on the tip deflection did not "
                       "converge")


def harmonic_balance(mass, stiffness, damping, force, varying=None, tol=1e-12):
    """The periodic x(t) of M x'' + K (x + mu x') + G(t) x = f(t) (f: [time, dof])."""
    samples, dofs = force.shape
    w = 2 * math.pi * np.fft.fftfreq(samples, d=1.0 / samples) / PERIOD
    dynamic = (stiffness[None] * (1 + 1j * damping * w)[:, None, None]
               - mass[None] * (w**2)[:, None, None])
    rhs = np.fft.fft(force, axis=0)
    x = np.real(np.fft.ifft(np.linalg.solve(dynamic, rhs[:, :, None])[:, :, 0], axis=0))
    if varying is None:
        return x
    for _ in range(200):
        product = np.einsum("tij,tj->ti", varying, x)
        spectrum = np.fft.fft(force - product, axis=0)
        new = np.real(np.fft.ifft(np.linalg.solve(dynamic, spectrum[:, :, None])[:, :, 0], axis=0))
        change = np.max(np.abs(new - x)) / max(np.max(np.abs(new)), 1e-300)
        x = new
        if change < tol:
            return x
    raise RuntimeError("harmonic balance: the fixed-point iteration on N(s, t) did not converge")


def modal_solution(link, modulus, damping, modes, axial):
    """The steady modal coordinates eta_j(t) of the continuous beam, `modes` sine modes."""
    L, EI = link.length, modulus * link.inertia
    j = np.arange(1, modes + 1)
    kj = j * math.pi / L
    mass = np.diag(np.full(modes, link.mu * L / 2))
    stiffness = np.diag(EI * kj**4 * L / 2)
    q0, q1 = link.load()
    # f_j = int (q0 + q1 s) sin(k_j s) ds
    force = (np.outer(q0, L * (1 - (-1.0) ** j) / (j * math.pi))
             + np.outer(q1, L**2 * (-1.0) ** (j + 1) / (j * math.pi)))
    varying = None
    if axial:
        # G_ij(t) = int N(s, t) phi_i' phi_j' ds - rho A omega^2 (L / 2) delta_ij (Gauss-Legendre)
        xg, wg = np.polynomial.legendre.leggauss(4 * modes + 8)
        s, ws = L * (xg + 1) / 2, wg * L / 2
        dphi = kj[None, :] * np.cos(np.outer(s, kj))  # [point, mode]
        tension = link.axial(s)  # [time, point]
        varying = np.einsum("tp,p,pi,pj->tij", tension, ws, dphi, dphi)
        varying -= (link.mu * link.omega**2 * L / 2)[:, None, None] * np.eye(modes)[None]
    return harmonic_balance(mass, stiffness, damping, force, varying)


def modal_moments(link, modulus, damping, modes, axial):
    """Steady M(s_k, t) at the nodes of the continuous beam from `modes` sine modes."""
    eta = modal_solution(link, modulus, damping, modes, axial)
    L, EI = link.length, modulus * link.inertia
    kj = np.arange(1, modes + 1) * math.pi / L
    s_nodes = L * np.arange(NODES) / (NODES - 1)
    curvature = -(kj**2)[None, :] * np.sin(np.outer(s_nodes, kj))  # w_ss per unit eta
    return with_damping(-EI * eta @ curvature.T, damping)  # M = -E I w_ss, [time, node]


def element_moments(link, modulus, damping, elements, axial):
    """Steady M at the nodes of `elements` elements discretised as the simulator's beams."""
    EI, h = modulus * link.inertia, link.length / elements
    n = 2 * (elements + 1)  # (w, theta) per node, theta the rotation relative to the chord
    stiffness, mass = np.zeros((n, n)), np.zeros((n, n))
    ke = EI / h**3 * np.array([[12, 6 * h, -12, 6 * h], [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                               [-12, -6 * h, 12, -6 * h], [6 * h, 2 * h * h, -6 * h, 4 * h * h]])
    mw = link.mu * h / 6 * np.array([[2.0, 1.0], [1.0, 2.0]])
    rotary = RHO * link.inertia * h / 2
    for e in range(elements):
        dofs = [2 * e, 2 * e + 1, 2 * e + 2, 2 * e + 3]
        stiffness[np.ix_(dofs, dofs)] += ke
        mass[np.ix_(dofs[0::2], dofs[0::2])] += mw
        mass[dofs[1], dofs[1]] += rotary
        mass[dofs[3], dofs[3]] += rotary
    q0, q1 = link.load()
    s_nodes = h * np.arange(elements + 1)
    force = np.zeros((len(q0), n))
    # The load of the linear acceleration field, consistent with the translations' mass.
    accel = -(q0[:, None] + q1[:, None] * s_nodes[None, :]) / link.mu
    force[:, 0::2] = -accel @ mass[0::2, 0::2].T
    # The rigid rotation's angular acceleration acts on the nodes' rotary inertia too.
    force[:, 1::2] = -np.outer(link.alpha, np.diag(mass)[1::2])
    varying = None
    if axial:
        mid = link.axial(h * (np.arange(elements) + 0.5))  # [time, element]
        varying = np.zeros((len(q0), n, n))
        for e in range(elements):
            a, b = 2 * e, 2 * e + 2
            g = mid[:, e] / h
            varying[:, a, a] += g
            varying[:, b, b] += g
            varying[:, a, b] -= g
            varying[:, b, a] -= g
        varying[:, 0::2, 0::2] -= (link.omega**2)[:, None, None] * mass[None, 0::2, 0::2]
    keep = [i for i in range(n) if i not in (0, n - 2)]  # the pins: w = 0 at both ends
    sub = np.ix_(keep, keep)
    x = np.zeros((len(q0), n))
    x[:, keep] = harmonic_balance(mass[sub], stiffness[sub], damping, force[:, keep],
                                  None if varying is None else varying[:, keep][:, :, keep])
    w, theta = x[:, 0::2], x[:, 1::2]
    chord = (w[:, 1:] - w[:, :-1]) / h
    t1, t2 = theta[:, :-1] - chord, theta[:, 1:] - chord
    m1, m2 = 2 * EI / h * (2 * t1 + t2), 2 * EI / h * (t1 + 2 * t2)
    internal = np.zeros_like(w)  # the simulator's: -M1 at an element's start, M2 at its end
    internal[:, :-1] -= m1
    internal[:, 1:] += m2
    internal[:, 1:-1] /= 2
    # Back to this script's sign and the nodes at sixths.
    return with_damping(-internal[:, :: elements // (NODES - 1)], damping)


def with_damping(elastic, damping):
    """The section's moment with the stiffness-proportional damping's part, M + mu dM/dt (as
    the simulator's moments; without it the moment of a very stiff link would lag its load)."""
    return elastic + damping * spectral_derivative(elastic, 1)


def seed_peaks(moment):
    """Peak |M| per node over the seed's 201 points of [0.3, 0.5] s (every sample on 0.001 s)."""
    step = int(round(0.001 / (PERIOD / moment.shape[0])))
    return np.max(np.abs(moment[::step]), axis=0)


def analyse(args):
    samples = args.samples
    if samples % 200 != 0:
        sys.exit("steady_flexible_check.py: --samples must be a multiple of 200 (the seed's grid)")
    if args.elements is not None and args.elements % (NODES - 1) != 0:
        sys.exit("steady_flexible_check.py: --elements must be a multiple of 6")
    t, coupler, rocker = mechanism(args.design, samples)
    rigid = {}
    for link in (coupler, rocker):
        rigid[link.name] = seed_peaks(link.rigid_moment(link.length * np.arange(NODES) / 6))
    theta = OMEGA * t
    normal = np.stack([-np.sin(theta), np.cos(theta)], axis=1)
    rigid_root = rigid_reference.L1 * seed_peaks(
        np.sum(coupler.force_near * normal, axis=1)[:, None]).max()
    crank = (rigid_root, rigid_root, 0.0)  # the rigid crank's root moment, no tip deflection
    if args.flexible_crank:
        (_, coupler, rocker), root, _, tip = flexible_crank(
            args.design, samples, args.modulus, args.damping, harmonics=args.harmonics,
            axial=not args.no_axial)
        crank = (rigid_root, seed_peaks(root[:, None]).max(), np.max(np.abs(tip)))
    rows = []
    for link in (coupler, rocker):
        models = [("modal", modal_moments(link, args.modulus, args.damping, args.modes,
                                          not args.no_axial))]
        if args.elements:
            models.append((f"{args.elements} elements",
                           element_moments(link, args.modulus, args.damping, args.elements,
                                           not args.no_axial)))
        for label, moment in models:
            rows.append((link, label, rigid[link.name], seed_peaks(moment)))
    return coupler, rocker, rows, crank


def optimum(args):
    """The design at which each link's peak stress is sigma_a in the check's model (the links
    on --elements elements, else modal): d2, d3 scaled by their peak stress ratio (M ~ d^2 for a
    link bent by its own inertia), d1 by its cube root, until the design stops moving."""
    model = f"{args.elements} elements" if args.elements else "modal"
    for cycle in range(1, 21):
        _, _, rows, crank = analyse(args)
        d1, d2, d3 = args.design
        ratio = [32 * crank[1] / (math.pi * d1**3) / rigid_reference.SIGMA_A]
        for link, label, _, peaks in rows:
            if label == model:
                ratio.append(32 * peaks.max() / (math.pi * link.d**3) / rigid_reference.SIGMA_A)
        new = [d1 * ratio[0] ** (1 / 3), d2 * ratio[1], d3 * ratio[2]]
        mass = RHO * math.pi / 4 * (rigid_reference.L1 * d1**2 + L2 * d2**2 + L3 * d3**2)
        print(f"optimum cycle {cycle}: {1000 * d1:.3f} {1000 * d2:.3f} {1000 * d3:.3f} mm "
              f"{mass:.4f} kg, peak stress / sigma_a "
              + " ".join(f"{r:.5f}" for r in ratio), flush=True)
        args.design = new
        if max(abs(n - o) for n, o in zip(new, (d1, d2, d3))) < 1e-7:
            return
    sys.exit("steady_flexible_check.py: --optimum did not settle in 20 cycles")


def reference_peaks(design):
    """rigid_reference.py's peak |M| at the 7 nodes of coupler and rocker (slender links)."""
    coupler, rocker = np.zeros(NODES), np.zeros(NODES)
    for k in range(201):
        _, c, r = rigid_reference.moments(0.3 + 0.001 * k, design[1], design[2], False)
        coupler, rocker = np.maximum(coupler, c), np.maximum(rocker, r)
    return {"coupler": coupler, "rocker": rocker}


def simulated_peaks(sao, args, crank_modulus):
    """Peak |M| at the 7 nodes of coupler and rocker from `sao evaluate` of flexible.json at the
    design, modulus and damping (the crank's modulus `crank_modulus`, an expression of E)."""
    study = os.path.join(os.path.dirname(os.path.abspath(__file__)), "flexible.json")
    command = [sao, "evaluate", study, "--json",
               "--set", f"simulator.multibody.parameters.E={args.modulus!r}",
               "--set", f"simulator.multibody.parameters.mu={args.damping!r}",
               "--set", f"simulator.multibody.beams.0.modulus={crank_modulus}"]
    for i, d in enumerate(args.design):
        command += ["--set", f"design_variables.{i}.initial={d!r}"]
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        sys.exit(f"steady_flexible_check.py: {' '.join(command)} failed (exit {run.returncode}): "
                 + (run.stderr.strip().splitlines() or [""])[-1])
    design = json.loads(run.stdout)["designs"][0]
    peaks = {"crank": np.zeros(NODES), "coupler": np.zeros(NODES), "rocker": np.zeros(NODES)}
    for c in design["constraints"]:  # stress_<link>_<k>[+|-]: the worst |32 M / (pi d^3)|
        link, k = c["name"].split("[")[0].split("_")[1:]
        d = args.design[list(peaks).index(link)]
        peaks[link][int(k)] = max(peaks[link][int(k)], c["worst"] * math.pi * d**3 / 32)
    return peaks


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--design", nargs=3, type=float, default=[0.034451, 0.022871, 0.017822])
    parser.add_argument("--modulus", type=float, default=E)
    parser.add_argument("--damping", type=float, default=2e-4)
    parser.add_argument("--modes", type=int, default=48)
    parser.add_argument("--samples", type=int, default=800)
    parser.add_argument("--elements", type=int, default=None)
    parser.add_argument("--no-axial", action="store_true")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--simulator", metavar="SAO",
                        help="also run SAO evaluate on flexible.json at the same design, modulus "
                        "and damping, the crank made rigid (1000 E), and compare")
    parser.add_argument("--flexible-crank", action="store_true",
                        help="the crank flexible too (a clamped-free beam loaded by the pin force, "
                        "the pin force carrying the links' bending inertia); with --simulator, "
                        "the simulator's crank at the study's modulus")
    parser.add_argument("--harmonics", type=int, default=30,
                        help="with --flexible-crank: harmonics of the crank's tip deflection")
    parser.add_argument("--tolerance", type=float, default=None,
                        help="with --simulator: exit 1 unless the simulated amplification of each "
                        "link (and of the crank's root, with --flexible-crank) is within this of "
                        "the check's on --elements elements")
    parser.add_argument("--optimum", action="store_true",
                        help="iterate the design to the check's own fully stressed optimum")
    args = parser.parse_args()
    if args.optimum:
        optimum(args)
        return
    coupler, rocker, rows, crank_check = analyse(args)
    for link in (coupler, rocker):
        first = link.length**-2 * math.pi**2 * math.sqrt(args.modulus * link.inertia / link.mu)
        print(f"# {link.name}: d = {1000 * link.d:.3f} mm, first pinned-pinned mode "
              f"{first:.1f} rad/s = {first / OMEGA:.2f} x the crank speed, damping ratio "
              f"{args.damping * first / 2:.4f}")
        s_nodes = link.length * np.arange(NODES) / (NODES - 1)
        peak = np.argmax(np.max(np.abs(link.rigid_moment(s_nodes)), axis=1))
        euler = math.pi**2 * args.modulus * link.inertia / link.length**2
        axial = link.axial([link.length / 2])[peak, 0]
        print(f"#   at its largest rigid moment (t = {0.3 + PERIOD * peak / args.samples:.4f} s) "
              f"mid-span axial force {axial:+.1f} N (tension +), {axial / euler:+.4f} of its "
              f"Euler load {euler:.0f} N")
    reference = reference_peaks(args.design)
    if args.flexible_crank:
        rigid_root, root, tip = crank_check
        print(f"crank: tip deflection up to {1000 * tip:.3f} mm; root |M| peak {root:.4f} N*m "
              f"against {rigid_root:.4f} N*m rigid: amplification {root / rigid_root:.4f}")
    for link, label, rigid, peaks in rows:
        if label == "modal":
            print(f"{link.name} rigid peak |M| N*m  "
                  + " ".join(f"{v:8.4f}" for v in rigid))
            print(f"{link.name} rigid_reference.py  "
                  + " ".join(f"{v:8.4f}" for v in reference[link.name]))
        ratio = peaks / rigid.max()
        print(f"{link.name} {label:>11} / rigid peak " + " ".join(f"{v:8.4f}" for v in ratio)
              + f"  amplification {peaks.max() / rigid.max():.4f}")
    failed = False
    if args.simulator:
        crank = "E" if args.flexible_crank else "1000*E"
        simulated = simulated_peaks(args.simulator, args, crank)
        if args.flexible_crank:
            amp = simulated["crank"][0] / crank_check[0]
            check = crank_check[1] / crank_check[0]
            print(f"crank simulator (crank {crank}): root |M| peak "
                  f"{simulated['crank'][0]:.4f} N*m, amplification {amp:.4f} against "
                  f"{check:.4f}: {amp - check:+.4f}")
            if args.tolerance is not None and abs(amp - check) > args.tolerance:
                failed = True
        for link, label, rigid, peaks in rows:
            if label == "modal" and args.elements:
                continue
            sim = simulated[link.name]
            amp, check = sim.max() / rigid.max(), peaks.max() / rigid.max()
            print(f"{link.name} simulator (crank {crank}) / rigid peak "
                  + " ".join(f"{v:8.4f}" for v in sim / rigid.max())
                  + f"  amplification {amp:.4f} against {check:.4f} ({label}): {amp - check:+.4f}")
            if args.tolerance is not None and abs(amp - check) > args.tolerance:
                failed = True
    if args.table:
        print("| link | model | E | damping | amplification |")
        print("|---|---|---|---|---|")
        for link, label, rigid, peaks in rows:
            print(f"| {link.name} | {label} | {args.modulus:.4g} | {args.damping:g} | "
                  f"{peaks.max() / rigid.max():.4f} |")
    if failed:
        sys.exit(f"steady_flexible_check.py: the simulator and the check differ by more than "
                 f"{args.tolerance}")
    if args.simulator and args.tolerance is not None:
        print(f"simulator and check agree within {args.tolerance}")


if __name__ == "__main__":
    main()
