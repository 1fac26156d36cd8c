import math
from lib import Problem, V, C, HS

GEN = "no bounds in the original: generous bounds added"

def hs(num, title, variables, functions, constraints, f_lit, x_pub, notes=None, tags=None, labels=None):
    name = "hs-%03d" % num
    desc = "HS %d: %s. Source: %s." % (num, title, HS % num)
    return Problem(name, desc, HS % num, variables, functions, "f", constraints, f_lit, x_pub, notes, tags, labels)

def xs(n, lo, hi, x0):
    x0 = x0 if isinstance(x0, (list, tuple)) else [x0] * n
    lo = lo if isinstance(lo, (list, tuple)) else [lo] * n
    hi = hi if isinstance(hi, (list, tuple)) else [hi] * n
    return [V("x%d" % (i + 1), lo[i], hi[i], x0[i]) for i in range(n)]

P = []
rosen = "100*(x2 - x1^2)^2 + (1 - x1)^2"
# HS 16
P.append(hs(16, "Rosenbrock's function, two quadratic inequalities", xs(2, [-0.5, -10], [0.5, 1], [-0.5, 1]),
    {"f": rosen, "c1": "x1 + x2^2", "c2": "x1^2 + x2"},
    [C("c1", lower=0, scale=1), C("c2", lower=0, scale=1)], 0.25, [0.5, 0.25],
    "x2 >= -10 added; the original start (-2, 1) is outside the bounds: x1 starts at its lower bound -0.5"))
# HS 17
P.append(hs(17, "Rosenbrock's function, two quadratic inequalities", xs(2, [-0.5, -10], [0.5, 1], [-0.5, 1]),
    {"f": rosen, "c1": "x2^2 - x1", "c2": "x1^2 - x2"},
    [C("c1", lower=0, scale=1), C("c2", lower=0, scale=1)], 1, [0, 0],
    "x2 >= -10 added; the original start (-2, 1) is outside the bounds: x1 starts at its lower bound -0.5"))
# HS 19
P.append(hs(19, "cubic objective, two circles", xs(2, [13, 0], [100, 100], [20.1, 5.84]),
    {"f": "(x1 - 10)^3 + (x2 - 20)^3", "c1": "(x1 - 5)^2 + (x2 - 5)^2", "c2": "(x2 - 5)^2 + (x1 - 6)^2"},
    [C("c1", lower=100), C("c2", upper=82.81)], -6961.81381, [14.095, 0.84296079]))
# HS 20
P.append(hs(20, "Rosenbrock's function, three quadratic inequalities", xs(2, [-0.5, -10], [0.5, 10], [-0.5, 1]),
    {"f": rosen, "c1": "x1 + x2^2", "c2": "x1^2 + x2", "c3": "x1^2 + x2^2"},
    [C("c1", lower=0, scale=1), C("c2", lower=0, scale=1), C("c3", lower=1)], 38.1987298, [0.5, math.sqrt(3) / 2],
    "-10 <= x2 <= 10 added; the original start (-2, 1) is outside the bounds: x1 starts at its lower bound -0.5"))
# HS 26
P.append(hs(26, "one quartic equality", xs(3, -10, 10, [-2.6, 2, 2]),
    {"f": "(x1 - x2)^2 + (x2 - x3)^4", "h1": "(1 + x2^2)*x1 + x3^4"},
    [C("h1", equals=3)], 0, [1, 1, 1], GEN, ["equality"]))
# HS 27
P.append(hs(27, "one quadratic equality", xs(3, -10, 10, 2),
    {"f": "0.01*(x1 - 1)^2 + (x2 - x1^2)^2", "h1": "x1 + x3^2"},
    [C("h1", equals=-1)], 0.04, [-1, 1, 0], GEN, ["equality"]))
# HS 32
P.append(hs(32, "one cubic inequality, one linear equality", xs(3, 0, 10, [0.1, 0.7, 0.2]),
    {"f": "(x1 + 3*x2 + x3)^2 + 4*(x1 - x2)^2", "c1": "6*x2 + 4*x3 - x1^3", "h1": "x1 + x2 + x3"},
    [C("c1", lower=3), C("h1", equals=1)], 1, [0, 0, 1], "x >= 0 in the original: upper bounds 10 added", ["equality"]))
# HS 40
P.append(hs(40, "three nonlinear equalities", xs(4, -10, 10, 0.8),
    {"f": "-x1*x2*x3*x4", "h1": "x1^3 + x2^2", "h2": "x4*x1^2 - x3", "h3": "x4^2 - x2"},
    [C("h1", equals=1), C("h2", equals=0, scale=1), C("h3", equals=0, scale=1)], -0.25,
    [2 ** (-1 / 3), 2 ** (-1 / 2), 2 ** (-11 / 12), 2 ** (-1 / 4)], GEN, ["equality"]))
# HS 41
P.append(hs(41, "a product, one linear equality", xs(4, 0, [1, 1, 1, 2], [1, 1, 1, 2]),
    {"f": "2 - x1*x2*x3", "h1": "x1 + 2*x2 + 2*x3 - x4"},
    [C("h1", equals=0, scale=1)], 52 / 27, [2 / 3, 1 / 3, 1 / 3, 2],
    "the original start (2, 2, 2, 2) is outside the bounds: (1, 1, 1, 2), the upper bounds", ["equality"]))
# HS 42
P.append(hs(42, "a linear and a quadratic equality", xs(4, -10, 10, 1),
    {"f": "(x1 - 1)^2 + (x2 - 2)^2 + (x3 - 3)^2 + (x4 - 4)^2", "h1": "x1", "h2": "x3^2 + x4^2"},
    [C("h1", equals=2), C("h2", equals=2)], 28 - 10 * math.sqrt(2), [2, 2, 0.6 * math.sqrt(2), 0.8 * math.sqrt(2)],
    GEN, ["equality"]))
# HS 46
P.append(hs(46, "two nonlinear equalities", xs(5, -10, 10, [math.sqrt(2) / 2, 1.75, 0.5, 2, 2]),
    {"f": "(x1 - x2)^2 + (x3 - 1)^2 + (x4 - 1)^4 + (x5 - 1)^6", "h1": "x1^2*x4 + sin(x4 - x5)", "h2": "x2 + x3^4*x4^2"},
    [C("h1", equals=1), C("h2", equals=2)], 0, [1, 1, 1, 1, 1], GEN, ["equality"]))
# HS 47
# HS 47 is left out: with (x2 - x3)^3 SLSQP finds f = -0.0267 at (0.677, 0.726, 1.216, 1.751, 1.477),
# below the published f* = 0 at x = 1.
P47 = (hs(47, "three nonlinear equalities", xs(5, -10, 10, [2, math.sqrt(2), -1, 2 - math.sqrt(2), 0.5]),
    {"f": "(x1 - x2)^2 + (x2 - x3)^3 + (x3 - x4)^4 + (x4 - x5)^4", "h1": "x1 + x2^2 + x3^3", "h2": "x2 - x3^2 + x4", "h3": "x1*x5"},
    [C("h1", equals=3), C("h2", equals=1), C("h3", equals=1)], 0, [1, 1, 1, 1, 1], GEN, ["equality"]))
# HS 48
P.append(hs(48, "two linear equalities", xs(5, -10, 10, [3, 5, -3, 2, -2]),
    {"f": "(x1 - 1)^2 + (x2 - x3)^2 + (x4 - x5)^2", "h1": "x1 + x2 + x3 + x4 + x5", "h2": "x3 - 2*(x4 + x5)"},
    [C("h1", equals=5), C("h2", equals=-3)], 0, [1, 1, 1, 1, 1], GEN, ["equality"]))
# HS 49
P.append(hs(49, "two linear equalities", xs(5, -20, 20, [10, 7, 2, -3, 0.8]),
    {"f": "(x1 - x2)^2 + (x3 - 1)^2 + (x4 - 1)^4 + (x5 - 1)^6", "h1": "x1 + x2 + x3 + 4*x4", "h2": "x3 + 5*x5"},
    [C("h1", equals=7), C("h2", equals=6)], 0, [1, 1, 1, 1, 1], GEN, ["equality"]))
# HS 50
P.append(hs(50, "three linear equalities", xs(5, -50, 50, [35, -31, 11, 5, -5]),
    {"f": "(x1 - x2)^2 + (x2 - x3)^2 + (x3 - x4)^4 + (x4 - x5)^2", "h1": "x1 + 2*x2 + 3*x3", "h2": "x2 + 2*x3 + 3*x4", "h3": "x3 + 2*x4 + 3*x5"},
    [C("h1", equals=6), C("h2", equals=6), C("h3", equals=6)], 0, [1, 1, 1, 1, 1], GEN, ["equality"]))
# HS 51
P.append(hs(51, "three linear equalities", xs(5, -10, 10, [2.5, 0.5, 2, -1, 0.5]),
    {"f": "(x1 - x2)^2 + (x2 + x3 - 2)^2 + (x4 - 1)^2 + (x5 - 1)^2", "h1": "x1 + 3*x2", "h2": "x3 + x4 - 2*x5", "h3": "x2 - x5"},
    [C("h1", equals=4), C("h2", equals=0, scale=1), C("h3", equals=0, scale=1)], 0, [1, 1, 1, 1, 1], GEN, ["equality"]))
# HS 52
P.append(hs(52, "three linear equalities", xs(5, -10, 10, 2),
    {"f": "(4*x1 - x2)^2 + (x2 + x3 - 2)^2 + (x4 - 1)^2 + (x5 - 1)^2", "h1": "x1 + 3*x2", "h2": "x3 + x4 - 2*x5", "h3": "x2 - x5"},
    [C("h1", equals=0, scale=1), C("h2", equals=0, scale=1), C("h3", equals=0, scale=1)], 1859 / 349,
    [-33 / 349, 11 / 349, 180 / 349, -158 / 349, 11 / 349], GEN, ["equality"]))
# HS 53
P.append(hs(53, "three linear equalities, bounds", xs(5, -10, 10, 2),
    {"f": "(x1 - x2)^2 + (x2 + x3 - 2)^2 + (x4 - 1)^2 + (x5 - 1)^2", "h1": "x1 + 3*x2", "h2": "x3 + x4 - 2*x5", "h3": "x2 - x5"},
    [C("h1", equals=0, scale=1), C("h2", equals=0, scale=1), C("h3", equals=0, scale=1)], 176 / 43,
    [-33 / 43, 11 / 43, 27 / 43, -5 / 43, 11 / 43], None, ["equality"]))
# HS 54
P.append(hs(54, "a Gaussian of six badly scaled variables, one linear equality",
    xs(6, [0, -10, 0, 0, -1, 0], [2e4, 10, 1e7, 20, 1, 2e8], [6000, 1.5, 4e6, 2, 0.003, 5e7]),
    {"f": "-exp(-(((x1 - 1e4)^2/6.4e7 + (x1 - 1e4)*(x2 - 1)/2e4 + (x2 - 1)^2)/0.96 + (x3 - 2e6)^2/4.9e13 + (x4 - 10)^2/2500 + (x5 - 1e-3)^2/2.5e-3 + (x6 - 1e8)^2/2.5e17)/2)",
     "h1": "x1 + 4000*x2"},
    [C("h1", equals=17600)], -math.exp(-27 / 280), [91600 / 7, 79 / 70, 2e6, 10, 1e-3, 1e8], None, ["equality", "badly-scaled"]))
# HS 55
P.append(hs(55, "six linear equalities", xs(6, 0, [1, 10, 10, 1, 10, 10], [1, 2, 0, 0, 0, 2]),
    {"f": "x1 + 2*x2 + 4*x5 + exp(x1*x4)", "h1": "x1 + 2*x2 + 5*x5", "h2": "x1 + x2 + x3", "h3": "x4 + x5 + x6",
     "h4": "x1 + x4", "h5": "x2 + x5", "h6": "x3 + x6"},
    [C("h1", equals=6), C("h2", equals=3), C("h3", equals=2), C("h4", equals=1), C("h5", equals=2), C("h6", equals=2)],
    19 / 3, [0, 4 / 3, 5 / 3, 1, 2 / 3, 1 / 3], "x >= 0, x1, x4 <= 1 in the original: the other upper bounds 10 added", ["equality"]))
# HS 56
a56, b56 = math.asin(math.sqrt(1 / 4.2)), math.asin(math.sqrt(5 / 7.2))
P.append(hs(56, "four trigonometric equalities", xs(7, [0, 0, 0, -3.2, -3.2, -3.2, -3.2], [10, 10, 10, 3.2, 3.2, 3.2, 3.2], [1, 1, 1, a56, a56, a56, b56]),
    {"f": "-x1*x2*x3", "h1": "x1 - 4.2*sin(x4)^2", "h2": "x2 - 4.2*sin(x5)^2", "h3": "x3 - 4.2*sin(x6)^2", "h4": "x1 + 2*x2 + 2*x3 - 7.2*sin(x7)^2"},
    [C("h1", equals=0, scale=1), C("h2", equals=0, scale=1), C("h3", equals=0, scale=1), C("h4", equals=0, scale=1)], -3.456,
    [2.4, 1.2, 1.2, math.asin(math.sqrt(4 / 7)), math.asin(math.sqrt(2 / 7)), math.asin(math.sqrt(2 / 7)), math.pi / 2],
    "no bounds in the original: 0 <= x1, x2, x3 <= 10 and -3.2 <= x4..x7 <= 3.2 added", ["equality"]))
# HS 57
a57 = [8] * 2 + [10] * 4 + [12] * 4 + [14] * 3 + [16] * 3 + [18] * 2 + [20] * 3 + [22] * 3 + [24] * 3 + [26] * 3 + [28] * 2 + [30] * 3 + [32] * 2 + [34] + [36] * 2 + [38] * 2 + [40] + [42]
b57 = [0.49, 0.49, 0.48, 0.47, 0.48, 0.47, 0.46, 0.46, 0.45, 0.43, 0.45, 0.43, 0.43, 0.44, 0.43, 0.43, 0.46, 0.45, 0.42, 0.42, 0.43, 0.41, 0.41, 0.40, 0.42, 0.40, 0.40, 0.41, 0.40, 0.41, 0.41, 0.40, 0.40, 0.40, 0.38, 0.41, 0.40, 0.40, 0.41, 0.38, 0.40, 0.40, 0.39, 0.39]
assert len(a57) == 44 and len(b57) == 44
f57 = " + ".join("(%s - x1 - (0.49 - x1)*exp(-x2*%d))^2" % (repr(b), a - 8) if a != 8 else "(%s - x1 - (0.49 - x1))^2" % repr(b) for a, b in zip(a57, b57))
P.append(hs(57, "least squares fit of 44 points, one inequality", xs(2, [0.4, -4], [1, 10], [0.42, 5]),
    {"f": f57, "c1": "0.49*x2 - x1*x2"},
    [C("c1", lower=0.09)], 0.02845966972, [0.419952675, 1.284845629], "x1 >= 0.4, x2 >= -4 in the original: upper bounds 1 and 10 added",
    labels={"f": "sum of 44 squared residuals"}))
# HS 59
f59 = ("-75.196 + 3.8112*x1 + 0.0020567*x1^3 - 1.0345e-5*x1^4 + 6.8306*x2 - 0.030234*x1*x2 + 1.28134e-3*x2*x1^2"
       " + 2.266e-7*x1^4*x2 - 0.25645*x2^2 + 0.0034604*x2^3 - 1.3514e-5*x2^4 + 28.106/(x2 + 1) + 5.2375e-6*x1^2*x2^2"
       " + 6.3e-8*x1^3*x2^2 - 7e-10*x1^3*x2^3 - 3.405e-4*x1*x2^2 + 1.6638e-6*x1*x2^3 + 2.8673*exp(0.0005*x1*x2)"
       " - 3.5256e-5*x1^3*x2 - 0.12694*x1^2")
P.append(hs(59, "a polynomial fit, three inequalities", xs(2, 0, [75, 65], [75, 10]),
    {"f": f59, "c1": "x1*x2", "c2": "x2 - x1^2/125", "c3": "(x2 - 50)^2 - 5*(x1 - 55)"},
    [C("c1", lower=700), C("c2", lower=0, scale=1), C("c3", lower=0, scale=1)], -7.804226324, [13.55010424, 51.66018129],
    "the original start (90, 10) is outside the bounds: x1 starts at its upper bound 75"))
# HS 60
P.append(hs(60, "one quartic equality, bounds", xs(3, -10, 10, 2),
    {"f": "(x1 - 1)^2 + (x1 - x2)^2 + (x2 - x3)^4", "h1": "x1*(1 + x2^2) + x3^4"},
    [C("h1", equals=4 + 3 * math.sqrt(2))], 0.0325682003, [1.104859024, 1.196674194, 1.535262257], None, ["equality"]))
# HS 61
P.append(hs(61, "two quadratic equalities", xs(3, -10, 10, 0),
    {"f": "4*x1^2 + 2*x2^2 + 2*x3^2 - 33*x1 + 16*x2 - 24*x3", "h1": "3*x1 - 2*x2^2", "h2": "4*x1 - x3^2"},
    [C("h1", equals=7), C("h2", equals=11)], -143.6461422, [5.326770157, -2.118998639, 3.210464239], GEN, ["equality"]))
# HS 62
f62 = "-32.174*(255*log((x1 + x2 + x3 + 0.03)/(0.09*x1 + x2 + x3 + 0.03)) + 280*log((x2 + x3 + 0.03)/(0.07*x2 + x3 + 0.03)) + 290*log((x3 + 0.03)/(0.13*x3 + 0.03)))"
P.append(hs(62, "logarithms, one linear equality", xs(3, 0, 1, [0.7, 0.2, 0.1]),
    {"f": f62, "h1": "x1 + x2 + x3"},
    [C("h1", equals=1)], -26272.51448, [0.6178126908, 0.328202223, 0.05398508606], None, ["equality"]))
# HS 63
P.append(hs(63, "a linear and a quadratic equality", xs(3, 0, 10, 2),
    {"f": "1000 - x1^2 - 2*x2^2 - x3^2 - x1*x2 - x1*x3", "h1": "8*x1 + 14*x2 + 7*x3", "h2": "x1^2 + x2^2 + x3^2"},
    [C("h1", equals=56), C("h2", equals=25)], 961.7151721, [3.512118414, 0.2169881741, 3.552174034],
    "x >= 0 in the original: upper bounds 10 added", ["equality"]))
# HS 64
P.append(hs(64, "a posynomial, one inequality", xs(3, 1e-5, 1000, 1),
    {"f": "5*x1 + 50000/x1 + 20*x2 + 72000/x2 + 10*x3 + 144000/x3", "c1": "4/x1 + 32/x2 + 120/x3"},
    [C("c1", upper=1)], 6299.842428, [108.7347175, 85.12613942, 204.3247078],
    "x >= 1e-5 in the original: upper bounds 1000 added"))
# HS 72
P.append(hs(72, "linear objective, two reciprocal inequalities", xs(4, 0.001, [4e5, 3e5, 2e5, 1e5], 1),
    {"f": "1 + x1 + x2 + x3 + x4", "c1": "4/x1 + 2.25/x2 + 1/x3 + 0.25/x4", "c2": "0.16/x1 + 0.36/x2 + 0.64/x3 + 0.64/x4"},
    [C("c1", upper=0.0401), C("c2", upper=0.010085)], 727.67937, [193.4071, 179.5475, 185.0186, 168.7062]))
# HS 73
P.append(hs(73, "cattle feed: linear objective, a chance constraint", xs(4, 0, 1, 1),
    {"f": "24.55*x1 + 26.75*x2 + 39*x3 + 40.5*x4", "c1": "2.3*x1 + 5.6*x2 + 11.1*x3 + 1.3*x4",
     "c2": "12*x1 + 11.9*x2 + 41.8*x3 + 52.1*x4 - 1.645*sqrt(0.28*x1^2 + 0.19*x2^2 + 20.5*x3^2 + 0.62*x4^2)", "h1": "x1 + x2 + x3 + x4"},
    [C("c1", lower=5), C("c2", lower=21), C("h1", equals=1)], 29.894378, [0.6355216, 0, 0.3127019, 0.05177655],
    "x >= 0 in the original: upper bounds 1 added (implied by the equality)", ["equality"]))
def hs74(num, a, f_lit, x_pub):
    return hs(num, "power generation: three trigonometric equalities, a range", xs(4, [0, 0, -a, -a], [1200, 1200, a, a], 0),
        {"f": "3*x1 + 1e-6*x1^3 + 2*x2 + 2e-6/3*x2^3", "c1": "x4 - x3",
         "h1": "1000*sin(-x3 - 0.25) + 1000*sin(-x4 - 0.25) - x1", "h2": "1000*sin(x3 - 0.25) + 1000*sin(x3 - x4 - 0.25) - x2",
         "h3": "1000*sin(x4 - 0.25) + 1000*sin(x4 - x3 - 0.25)"},
        [C("c1", lower=-a, upper=a), C("h1", equals=-894.8), C("h2", equals=-894.8), C("h3", equals=-1294.8)], f_lit, x_pub,
        None, ["equality"])
P.append(hs74(74, 0.55, 5126.4981, [679.9453, 1026.067, 0.1188764, -0.3962336]))
P.append(hs74(75, 0.48, 5174.4129, [776.1592, 925.1949, 0.05110879, -0.4288911]))
# HS 77
P.append(hs(77, "two nonlinear equalities", xs(5, -10, 10, 2),
    {"f": "(x1 - 1)^2 + (x1 - x2)^2 + (x3 - 1)^2 + (x4 - 1)^4 + (x5 - 1)^6", "h1": "x1^2*x4 + sin(x4 - x5)", "h2": "x2 + x3^4*x4^2"},
    [C("h1", equals=2 * math.sqrt(2)), C("h2", equals=8 + math.sqrt(2))], 0.24150513, [1.166172, 1.182111, 1.380257, 1.506036, 0.6109203],
    GEN, ["equality"]))
# HS 78
c78 = [C("h1", equals=10), C("h2", equals=0, scale=1), C("h3", equals=-1)]
g78 = {"h1": "x1^2 + x2^2 + x3^2 + x4^2 + x5^2", "h2": "x2*x3 - 5*x4*x5", "h3": "x1^3 + x2^3"}
x78 = [-1.717143, 1.595709, 1.827247, -0.7636413, -0.7636450]
P.append(hs(78, "a product, three equalities", xs(5, -10, 10, [-2, 1.5, 2, -1, -1]),
    dict({"f": "x1*x2*x3*x4*x5"}, **g78), c78, -2.91970041, x78, GEN, ["equality"]))
# HS 79
P.append(hs(79, "three nonlinear equalities", xs(5, -10, 10, 2),
    {"f": "(x1 - 1)^2 + (x1 - x2)^2 + (x2 - x3)^2 + (x3 - x4)^4 + (x4 - x5)^4", "h1": "x1 + x2^2 + x3^3", "h2": "x2 - x3^2 + x4", "h3": "x1*x5"},
    [C("h1", equals=2 + 3 * math.sqrt(2)), C("h2", equals=-2 + 2 * math.sqrt(2)), C("h3", equals=2)], 0.0787768209,
    [1.191127, 1.362603, 1.472818, 1.635017, 1.679081], GEN, ["equality"]))
# HS 80, 81
b80 = ([-2.3, -2.3, -3.2, -3.2, -3.2], [2.3, 2.3, 3.2, 3.2, 3.2])
P.append(hs(80, "exponential of a product, three equalities", xs(5, b80[0], b80[1], [-2, 2, 2, -1, -1]),
    dict({"f": "exp(x1*x2*x3*x4*x5)"}, **g78), c78, 0.0539498478, x78, None, ["equality"]))
P.append(hs(81, "exponential of a product, three equalities", xs(5, b80[0], b80[1], [-2, 2, 2, -1, -1]),
    dict({"f": "exp(x1*x2*x3*x4*x5) - 0.5*(x1^3 + x2^3 + 1)^2"}, **g78), c78, 0.0539498478, x78, None, ["equality"]))
# HS 83
P.append(hs(83, "Colville's / Himmelblau's problem: three quadratic ranges", xs(5, [78, 33, 27, 27, 27], [102, 45, 45, 45, 45], [78, 33, 27, 27, 27]),
    {"f": "5.3578547*x3^2 + 0.8356891*x1*x5 + 37.293239*x1 - 40792.141",
     "c1": "85.334407 + 0.0056858*x2*x5 + 0.0006262*x1*x4 - 0.0022053*x3*x5",
     "c2": "80.51249 + 0.0071317*x2*x5 + 0.0029955*x1*x2 + 0.0021813*x3^2",
     "c3": "9.300961 + 0.0047026*x3*x5 + 0.0012547*x1*x3 + 0.0019085*x3*x4"},
    [C("c1", lower=0, upper=92, scale=92), C("c2", lower=90, upper=110), C("c3", lower=20, upper=25)], -30665.53867,
    [78, 33, 29.99526, 45, 36.77581]))
# HS 84
a84 = [-24345, -8720288.849, 150512.5253, -156.6950325, 476470.3222, 729482.8271, -145421.402, 2931.1506, -40.427932, 5106.192,
       15711.36, -155011.1084, 4360.53352, 12.9492344, 10236.884, 13176.786, -326669.5104, 7390.68412, -27.8986976, 16643.076, 30988.146]
def lin84(k):
    a = a84[k:k + 5]
    return "%r*x1 + %r*x1*x2 + %r*x1*x3 + %r*x1*x4 + %r*x1*x5" % tuple(a)
f84 = "-(%r + %r*x1 + %r*x1*x2 + %r*x1*x3 + %r*x1*x4 + %r*x1*x5)" % tuple(a84[0:6])
P.append(hs(84, "bilinear objective, three bilinear ranges", xs(5, [0, 1.2, 20, 9, 6.5], [1000, 2.4, 60, 9.3, 7], [2.52, 2, 37.5, 9.25, 6.8]),
    {"f": f84, "c1": lin84(6), "c2": lin84(11), "c3": lin84(16)},
    [C("c1", lower=0, upper=294000, scale=294000), C("c2", lower=0, upper=294000, scale=294000), C("c3", lower=0, upper=277200, scale=277200)],
    -5280335.133, [4.53743097, 2.4, 60, 9.3, 7.0]))
# HS 86 and its dual HS 117
A86 = [[-16, 2, 0, 1, 0], [0, -2, 0, 4, 2], [-3.5, 0, 2, 0, 0], [0, -2, 0, -4, -1], [0, -9, -2, 1, -2.8],
       [2, 0, -4, 0, 0], [-1, -1, -1, -1, -1], [-1, -2, -3, -2, -1], [1, 2, 3, 4, 5], [1, 1, 1, 1, 1]]
B86 = [-40, -2, -0.25, -4, -4, -1, -40, -60, 5, 1]
C86 = [[30, -20, -10, 32, -10], [-20, 39, -6, -31, 32], [-10, -6, 10, -6, -10], [32, -31, -6, 39, -20], [-10, 32, -10, -20, 30]]
D86 = [4, 8, 10, 6, 2]
E86 = [-15, -27, -36, -18, -12]
def lincomb(coefs, names):
    s = ""
    for c, v in zip(coefs, names):
        if c == 0: continue
        mag = abs(c); term = v if mag == 1 else "%s*%s" % (repr(mag) if mag != int(mag) else int(mag), v)
        s += (" - " if c < 0 else " + ") + term if s else ("-" if c < 0 else "") + term
    return s
def sq86(names):
    terms = []
    for i in range(5):
        for j in range(5):
            terms.append((C86[i][j], "%s*%s" % (names[i], names[j])))
    return lincomb([t[0] for t in terms], [t[1] for t in terms])
x5 = ["x%d" % (i + 1) for i in range(5)]
f86 = lincomb(E86, x5) + " + " + sq86(x5).lstrip() + " + " + lincomb(D86, [v + "^3" for v in x5])
f86 = f86.replace("+ -", "- ")
fun86 = {"f": f86}
con86 = []
for i in range(10):
    fun86["c%d" % (i + 1)] = lincomb(A86[i], x5)
    con86.append(C("c%d" % (i + 1), lower=B86[i]))
P.append(hs(86, "a cubic, ten linear inequalities", xs(5, 0, 10, [0, 0, 0, 0, 1]), fun86, con86, -32.34867897,
    [0.3, 0.33346761, 0.4, 0.42831010, 0.22396487], "x >= 0 in the original: upper bounds 10 added", labels={"f": "objective function"}))
# HS 95-98
ub95 = [0.31, 0.046, 0.068, 0.042, 0.028, 0.0134]
g95 = {"f": "4.3*x1 + 31.8*x2 + 63.3*x3 + 15.8*x4 + 68.5*x5 + 4.7*x6",
       "c1": "17.1*x1 + 38.2*x2 + 204.2*x3 + 212.3*x4 + 623.4*x5 + 1495.5*x6 - 169*x1*x3 - 3580*x3*x5 - 3810*x4*x5 - 18500*x4*x6 - 24300*x5*x6",
       "c2": "17.9*x1 + 36.8*x2 + 113.9*x3 + 169.7*x4 + 337.8*x5 + 1385.2*x6 - 139*x1*x3 - 2450*x4*x5 - 16600*x4*x6 - 17200*x5*x6",
       "c3": "-273*x2 - 70*x4 - 819*x5 + 26000*x4*x5",
       "c4": "159.9*x1 - 311*x2 + 587*x4 + 391*x5 + 2198*x6 - 14000*x1*x6"}
for num, b, flit, xp in [(95, [4.97, -1.88, -29.08, -78.02], 0.015619514, [0, 0, 0, 0, 0, 4.97 / 1495.5]),
                         (96, [4.97, -1.88, -69.08, -118.02], 0.015619514, [0, 0, 0, 0, 0, 4.97 / 1495.5]),
                         (97, [32.97, 25.12, -29.08, -78.02], 3.1358091, [0.2685, 0, 0, 0, 0.028, 0.0134]),
                         (98, [32.97, 25.12, -124.08, -173.02], 3.1358091, [0.2685, 0, 0, 0, 0.028, 0.0134])]:
    P.append(hs(num, "linear objective, four bilinear inequalities", xs(6, 0, ub95, 0), dict(g95),
        [C("c%d" % (i + 1), lower=b[i]) for i in range(4)], flit, xp))
# HS 101-103
def posy(a):
    return {"f": "10*x1*x4^2*x7^(%s)/(x2*x6^3) + 15*x3*x4/(x1*x2^2*x5*x7^0.5) + 20*x2*x6/(x1^2*x4*x5^2) + 25*x1^2*x2^2*x5^0.5*x7/(x3*x6^2)" % a,
            "c1": "0.5*x1^0.5*x7/(x3*x6^2) + 0.7*x1^3*x2*x6*x7^0.5/x3^2 + 0.2*x3*x6^(2/3)*x7^0.25/(x2*x4^0.5)",
            "c2": "1.3*x2*x6/(x1^0.5*x3*x5) + 0.8*x3*x6^2/(x4*x5) + 3.1*x2^0.5*x6^(1/3)/(x1*x4^2*x5)",
            "c3": "2*x1*x5*x7^(1/3)/(x3^1.5*x6) + 0.1*x2*x5/(x3^0.5*x6*x7^0.5) + x2*x3^0.5*x5/x1 + 0.65*x3*x5*x7/(x2^2*x6)",
            "c4": "0.2*x2*x5^0.5*x7^(1/3)/(x1^2*x4) + 0.3*x1^0.5*x2^2*x3*x4^(1/3)*x7^0.25/x5^(2/3) + 0.4*x3*x5*x7^0.75/(x1^3*x2^2) + 0.5*x4*x7^0.5/x3^2"}
for num, a, flit, xp in [(101, "-0.25", 1809.76476, [2.856159, 0.6108230, 2.150813, 4.712874, 0.9994875, 1.347507, 0.03165277]),
                         (102, "0.125", 911.880571, [3.896253, 0.8093588, 2.664386, 4.300951, 0.8535557, 1.095292, 0.02731163]),
                         (103, "0.5", 543.667958, [4.394105, 0.8544687, 2.843230, 3.399979, 0.7229261, 0.8702260, 0.02463945])]:
    P.append(hs(num, "posynomials (a geometric program), four inequalities and a range on the objective",
        xs(7, [0.1] * 6 + [0.01], 10, 6), posy(a),
        [C("c%d" % (i + 1), upper=1) for i in range(4)] + [C("f", lower=100, upper=3000)], flit, xp,
        labels={"f": "objective function"}))
# HS 106
P.append(hs(106, "heat exchanger design: linear objective, six inequalities", xs(8, [100, 1000, 1000, 10, 10, 10, 10, 10], [10000, 10000, 10000, 1000, 1000, 1000, 1000, 1000], [5000, 5000, 5000, 200, 350, 150, 225, 425]),
    {"f": "x1 + x2 + x3", "c1": "0.0025*(x4 + x6)", "c2": "0.0025*(x5 + x7 - x4)", "c3": "0.01*(x8 - x5)",
     "c4": "x1*x6 - 833.33252*x4 - 100*x1", "c5": "x2*x7 - 1250*x5 - x2*x4 + 1250*x4", "c6": "x3*x8 - x3*x5 + 2500*x5"},
    [C("c1", upper=1), C("c2", upper=1), C("c3", upper=1), C("c4", lower=-83333.333), C("c5", lower=0, scale=1e6), C("c6", lower=1250000)],
    7049.330923, [579.3167, 1359.943, 5110.071, 182.0174, 295.5985, 217.9799, 286.4162, 395.5979], None, ["badly-scaled"]))
# HS 107
c107 = 48.4 / 50.176 * math.sin(0.25)
d107 = 48.4 / 50.176 * math.cos(0.25)
def t107(s):
    return s.replace("C", repr(c107)).replace("D", repr(d107))
P.append(hs(107, "static power scheduling: six trigonometric equalities",
    xs(9, [0, 0, -10, -10, 0.90909, 0.90909, 0.90909, -10, -10], [10, 10, 10, 10, 1.0909, 1.0909, 1.0909, 10, 10], [0.8, 0.8, 0.2, 0.2, 1.0454, 1.0454, 1.0454, 0, 0]),
    {"f": "3000*x1 + 1000*x1^3 + 2000*x2 + 666.667*x2^3",
     "h1": t107("2*C*x5^2 - x5*x6*(D*sin(x8) + C*cos(x8)) - x5*x7*(D*sin(x9) + C*cos(x9)) - x1"),
     "h2": t107("2*C*x6^2 + x5*x6*(D*sin(x8) - C*cos(x8)) + x6*x7*(D*sin(x8 - x9) - C*cos(x8 - x9)) - x2"),
     "h3": t107("2*C*x7^2 + x5*x7*(D*sin(x9) - C*cos(x9)) - x6*x7*(D*sin(x8 - x9) + C*cos(x8 - x9))"),
     "h4": t107("2*D*x5^2 + x5*x6*(C*sin(x8) - D*cos(x8)) + x5*x7*(C*sin(x9) - D*cos(x9)) - x3"),
     "h5": t107("2*D*x6^2 - x5*x6*(C*sin(x8) + D*cos(x8)) - x6*x7*(C*sin(x8 - x9) + D*cos(x8 - x9)) - x4"),
     "h6": t107("2*D*x7^2 - x5*x7*(C*sin(x9) + D*cos(x9)) + x6*x7*(C*sin(x8 - x9) - D*cos(x8 - x9))")},
    [C("h1", equals=-0.4), C("h2", equals=-0.4), C("h3", equals=-0.8), C("h4", equals=-0.2), C("h5", equals=-0.2), C("h6", equals=0.337)],
    5055.01180, [0.6670095, 1.022388, 0.2282879, 0.1848217, 1.090900, 1.090900, 1.069036, 0.1066126, -0.3387867],
    "x1, x2 >= 0 and 0.90909 <= x5, x6, x7 <= 1.0909 in the original: the other bounds added (+-10)", ["equality"]))
# HS 108
P.append(hs(108, "the largest hexagon of diameter 1: thirteen quadratic inequalities", xs(9, [-10] * 8 + [0], 10, 1),
    {"f": "-0.5*(x1*x4 - x2*x3 + x3*x9 - x5*x9 + x5*x8 - x6*x7)",
     "c1": "x3^2 + x4^2", "c2": "x5^2 + x6^2", "c3": "(x1 - x5)^2 + (x2 - x6)^2", "c4": "(x1 - x7)^2 + (x2 - x8)^2",
     "c5": "(x3 - x5)^2 + (x4 - x6)^2", "c6": "(x3 - x7)^2 + (x4 - x8)^2", "c7": "x3*x9", "c8": "x5*x8 - x6*x7",
     "c9": "x9^2", "c10": "x1^2 + (x2 - x9)^2", "c11": "x1*x4 - x2*x3", "c12": "x5*x9", "c13": "x7^2 + (x8 - x9)^2"},
    [C("c1", upper=1), C("c2", upper=1), C("c3", upper=1), C("c4", upper=1), C("c5", upper=1), C("c6", upper=1),
     C("c7", lower=0, scale=1), C("c8", lower=0, scale=1), C("c9", upper=1), C("c10", upper=1), C("c11", lower=0, scale=1), C("c12", upper=0, scale=1), C("c13", upper=1)],
    -0.8660254038, [0.8841292, 0.4672425, 0.03742076, 0.9992996, 0.8841292, 0.4672424, 0.03742076, 0.9992996, 0],
    "only x9 >= 0 in the original: bounds +-10 added; many optima of the same value (symmetries)"))
# HS 109
a109, sb, cb = 50.176, math.sin(0.25), math.cos(0.25)
def t109(s):
    return s.replace("A", repr(a109)).replace("SB", repr(sb)).replace("CB", repr(cb))
P.append(hs(109, "power dispatch: six trigonometric equalities, three inequalities",
    xs(9, [0, 0, -0.55, -0.55, 196, 196, 196, -400, -400], [2000, 2000, 0.55, 0.55, 252, 252, 252, 800, 800], [0, 0, 0, 0, 196, 196, 196, 0, 0]),
    {"f": "3*x1 + 1e-6*x1^3 + 2*x2 + 0.522074e-6*x2^3", "c1": "x4 - x3", "c2": "x1^2 + x8^2", "c3": "x2^2 + x9^2",
     "h1": t109("x5*x6*sin(-x3 - 0.25) + x5*x7*sin(-x4 - 0.25) + 2*SB*x5^2 - A*x1"),
     "h2": t109("x5*x6*sin(x3 - 0.25) + x6*x7*sin(x3 - x4 - 0.25) + 2*SB*x6^2 - A*x2"),
     "h3": t109("x5*x7*sin(x4 - 0.25) + x6*x7*sin(x4 - x3 - 0.25) + 2*SB*x7^2"),
     "h4": t109("A*x8 + x5*x6*cos(-x3 - 0.25) + x5*x7*cos(-x4 - 0.25) - 2*CB*x5^2 + 0.7533e-3*A*x5^2"),
     "h5": t109("A*x9 + x5*x6*cos(x3 - 0.25) + x6*x7*cos(x3 - x4 - 0.25) - 2*CB*x6^2 + 0.7533e-3*A*x6^2"),
     "h6": t109("x5*x7*cos(x4 - 0.25) + x6*x7*cos(x4 - x3 - 0.25) - 2*CB*x7^2 + 0.7533e-3*A*x7^2")},
    [C("c1", lower=-0.55, upper=0.55), C("c2", upper=2250000), C("c3", upper=2250000),
     C("h1", equals=-400 * a109), C("h2", equals=-400 * a109), C("h3", equals=-881.779 * a109),
     C("h4", equals=200 * a109), C("h5", equals=200 * a109), C("h6", equals=22.938 * a109)],
    5362.06928, [674.8881, 1134.170, 0.1335691, -0.3711526, 252, 252, 201.4651, 426.6200, 368.4494],
    "x1, x2 >= 0 in the original: upper bounds 2000 added; the original start 0 is outside the bounds 196 <= x5, x6, x7: they start at 196",
    ["equality"]))
# HS 111
c111 = [-6.089, -17.164, -34.054, -5.914, -24.721, -14.986, -24.100, -10.708, -26.662, -22.179]
lse = "log(" + " + ".join("exp(x%d)" % (k + 1) for k in range(10)) + ")"
f111 = " + ".join("exp(x%d)*(%s + x%d - %s)" % (j + 1, repr(c111[j]), j + 1, lse) for j in range(10)).replace("+ -", "- ")
P.append(hs(111, "chemical equilibrium in exponential variables, three equalities", xs(10, -100, 100, -2.3),
    {"f": f111, "h1": "exp(x1) + 2*exp(x2) + 2*exp(x3) + exp(x6) + exp(x10)", "h2": "exp(x4) + 2*exp(x5) + exp(x6) + exp(x7)",
     "h3": "exp(x3) + exp(x7) + exp(x8) + 2*exp(x9) + exp(x10)"},
    [C("h1", equals=2), C("h2", equals=1), C("h3", equals=1)], -47.76109026,
    [-3.201212, -1.912060, -0.2444413, -6.537489, -0.7231524, -7.267738, -3.596711, -4.017769, -3.287462, -2.335582], None, ["equality"],
    labels={"f": "objective function"}))
# HS 112
sx = "(" + " + ".join("x%d" % (k + 1) for k in range(10)) + ")"
f112 = " + ".join("x%d*(%s + log(x%d/%s))" % (j + 1, repr(c111[j]), j + 1, sx) for j in range(10))
P.append(hs(112, "chemical equilibrium, three linear equalities", xs(10, 1e-6, 10, 0.1),
    {"f": f112, "h1": "x1 + 2*x2 + 2*x3 + x6 + x10", "h2": "x4 + 2*x5 + x6 + x7", "h3": "x3 + x7 + x8 + 2*x9 + x10"},
    [C("h1", equals=2), C("h2", equals=1), C("h3", equals=1)], -47.707579,
    [0.01773548, 0.08200180, 0.8825646, 0.7233256e-3, 0.4907851, 0.4335469e-3, 0.01727298, 0.007765639, 0.01984929, 0.05269826],
    "x >= 1e-6 in the original: upper bounds 10 added", ["equality"], labels={"f": "objective function"}))
# HS 114
a114, b114 = 0.99, 0.9
P.append(hs(114, "alkylation process: eight inequalities, three equalities",
    xs(10, [1e-5, 1e-5, 1e-5, 1e-5, 1e-5, 85, 90, 3, 1.2, 145], [2000, 16000, 120, 5000, 2000, 93, 95, 12, 4, 162], [1745, 12000, 110, 3048, 1974, 89.2, 92.8, 8, 3.6, 145]),
    {"f": "5.04*x1 + 0.035*x2 + 10*x3 + 3.36*x5 - 0.063*x4*x7",
     "c1": "0.222*x10 + 0.9*x9", "c2": "3*x7 - 0.99*x10",
     "c3": "0.222*x10 + 0.9*x9 + (1/0.9 - 0.9)*x9", "c4": "-3*x7 + 0.99*x10 + (1/0.99 - 0.99)*x10",
     "c5": "1.12*x1 + 0.13167*x1*x8 - 0.00667*x1*x8^2 - 0.99*x4", "c6": "1.098*x8 - 0.038*x8^2 + 0.325*x6 - 0.99*x7",
     "c7": "-1.12*x1 - 0.13167*x1*x8 + 0.00667*x1*x8^2 + 0.99*x4 + (1/0.99 - 0.99)*x4",
     "c8": "-1.098*x8 + 0.038*x8^2 - 0.325*x6 + 0.99*x7 + (1/0.99 - 0.99)*x7",
     "h1": "1.22*x4 - x1 - x5", "h2": "98000*x3/(x4*x9 + 1000*x3) - x6", "h3": "(x2 + x5)/x1 - x8"},
    [C("c1", upper=35.82), C("c2", lower=133), C("c3", lower=35.82), C("c4", lower=-133), C("c5", lower=0, scale=100),
     C("c6", lower=-57.425), C("c7", lower=0, scale=100), C("c8", lower=57.425),
     C("h1", equals=0, scale=100), C("h2", equals=0, scale=100), C("h3", equals=0, scale=10)],
    -1768.80696, [1698.094, 15818.73, 54.10228, 3031.226, 2000, 90.11542, 95, 10.49336, 1.561636, 153.5353], None, ["equality"]))
# HS 116
P.append(hs(116, "membrane separation: fifteen inequalities",
    xs(13, [0.1, 0.1, 0.1, 0.0001, 0.1, 0.1, 0.1, 0.1, 500, 0.1, 1, 0.0001, 0.0001], [1, 1, 1, 0.1, 0.9, 0.9, 1000, 1000, 1000, 500, 150, 150, 150],
       [0.5, 0.8, 0.9, 0.1, 0.14, 0.5, 489, 80, 650, 450, 150, 150, 150]),
    {"f": "x11 + x12 + x13", "c1": "x3 - x2", "c2": "x2 - x1", "c3": "0.002*x7 - 0.002*x8", "c4": "x11 + x12 + x13",
     "c5": "x13 - 1.262626*x10 + 1.231059*x3*x10", "c6": "x5 - 0.03475*x2 - 0.975*x2*x5 + 0.00975*x2^2",
     "c7": "x6 - 0.03475*x3 - 0.975*x3*x6 + 0.00975*x3^2", "c8": "x4 - 0.03475*x1 - 0.975*x1*x4 + 0.00975*x1^2",
     "c9": "x12 - 1.262626*x9 + 1.231059*x2*x9", "c10": "x11 - 1.262626*x8 + 1.231059*x1*x8",
     "c11": "x5*x7 - x1*x8 - x4*x7 + x4*x8", "c12": "0.002*(x2*x9 + x5*x8 - x1*x8 - x6*x9) + x5 + x6",
     "c13": "x2*x9 - x3*x10 - x6*x9 - 500*x2 + 500*x6 + x2*x10", "c14": "x2 - 0.002*(x2*x10 - x3*x10)"},
    [C("c1", lower=0, scale=1), C("c2", lower=0, scale=1), C("c3", upper=1), C("c4", lower=50, upper=250), C("c5", lower=0, scale=100),
     C("c6", lower=0, scale=1), C("c7", lower=0, scale=1), C("c8", lower=0, scale=1), C("c9", lower=0, scale=100), C("c10", lower=0, scale=100),
     C("c11", lower=0, scale=100), C("c12", upper=1), C("c13", lower=0, scale=100), C("c14", lower=0.9)],
    97.588409, [0.8037703, 0.8999860, 0.9709878, 0.09999952, 0.1908131, 0.4605547, 574.0803, 74.08043, 500.0162, 0.1, 20.23413, 77.34768, 0.00673039]))
# HS 117
x15 = ["x%d" % (i + 1) for i in range(15)]
f117 = lincomb([-b for b in B86], x15[:10]) + " + " + sq86(x15[10:]) + " + " + lincomb([2 * d for d in D86], [v + "^3" for v in x15[10:]])
f117 = f117.replace("+ -", "- ")
fun117 = {"f": f117}
con117 = []
for j in range(5):
    t = lincomb([2 * C86[k][j] for k in range(5)], x15[10:]) + " + %d*%s^2" % (3 * D86[j], x15[10 + j]) + " - (" + lincomb([A86[k][j] for k in range(10)], x15[:10]) + ")"
    fun117["c%d" % (j + 1)] = t.replace("+ -", "- ")
    con117.append(C("c%d" % (j + 1), lower=-E86[j]))
x0_117 = [0.001] * 15; x0_117[6] = 60
P.append(hs(117, "the dual of HS 86: a cubic, five quadratic inequalities", xs(15, 0, 100, x0_117), fun117, con117, 32.34867897,
    [0, 0, 5.174136, 0, 3.061093, 11.83968, 0, 0, 0.1039071, 0, 0.2999929, 0.3334709, 0.3999910, 0.4283145, 0.2239607],
    "x >= 0 in the original: upper bounds 100 added", labels={"f": "objective function"}))
# HS 119
A119 = [[1, 4, 7, 8, 16], [2, 3, 7, 10], [3, 7, 9, 10, 14], [4, 7, 11, 15], [5, 6, 10, 12, 16], [6, 8, 15], [7, 11, 13], [8, 10, 15], [9, 12, 16], [10, 14], [11, 13], [12, 14], [13, 14], [14], [15], [16]]
Bcols = {1: [0.22, -1.46, 1.29, -1.10, 0, 0, 1.12, 0], 2: [0.20, 0, -0.89, -1.06, 0, -1.72, 0, 0.45], 3: [0.19, -1.30, 0, 0.95, 0, -0.33, 0, 0.26],
         4: [0.25, 1.82, 0, -0.54, -1.43, 0, 0.31, -1.10], 5: [0.15, -1.15, -1.16, 0, 1.51, 1.62, 0, 0.58], 6: [0.11, 0, -0.96, -1.78, 0.59, 1.24, 0, 0],
         7: [0.12, 0.80, 0, -0.41, -0.33, 0.21, 1.12, -1.03], 8: [0.13, 0, -0.49, 0, -0.43, -0.26, 0, 0.10], 9: [1, 0, 0, 0, 0, 0, -0.36, 0]}
for j in range(10, 17):
    Bcols[j] = [1 if i == j - 8 else 0 for i in range(1, 9)]
c119 = [2.5, 1.1, -3.1, -3.5, 1.3, 2.1, 2.3, -1.5]
q = lambda i: "(x%d^2 + x%d + 1)" % (i, i)
f119 = " + ".join("%s*%s" % (q(i + 1), q(j)) if j != i + 1 else "%s^2" % q(i + 1) for i in range(16) for j in A119[i])
fun119 = {"f": f119}
con119 = []
for r in range(8):
    fun119["h%d" % (r + 1)] = lincomb([Bcols[j][r] for j in range(1, 17)], ["x%d" % j for j in range(1, 17)])
    con119.append(C("h%d" % (r + 1), equals=c119[r]))
P.append(hs(119, "sixteen variables, eight linear equalities", xs(16, 0, 5, 5), fun119, con119, 244.899698,
    [0.03984735, 0.7919832, 0.2028703, 0.8443579, 1.126991, 0.9347387, 1.681962, 0.1553009, 1.567870, 0, 0, 0, 0.6602041, 0, 0.6742559, 0],
    "the original start 10 is outside the bounds 0 <= x <= 5: x starts at 5", ["equality"], labels={"f": "objective function"}))
