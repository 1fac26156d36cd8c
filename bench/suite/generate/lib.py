"""Shared helpers: study JSON writer, Python evaluation of the expression text, scipy refinement."""
import json, math, re
import numpy as np

HS = "Hock & Schittkowski, Test Examples for Nonlinear Programming Codes (1981), problem %d"

def pyexpr(text):
    return text.replace("^", "**")

ENV = {k: getattr(math, k) for k in ["sin", "cos", "tan", "asin", "acos", "atan", "sqrt", "exp", "log", "atan2"]}
ENV.update({"abs": abs, "min": min, "max": max, "pow": pow, "pi": math.pi})

class Problem:
    def __init__(self, name, description, source, variables, functions, objective, constraints,
                 f_literature=None, x_published=None, notes=None, tags=None, labels=None, units=None,
                 settings=None):
        self.name, self.description, self.source = name, description, source
        self.variables = variables  # list of dicts: name, lower, upper, initial, (label, unit)
        self.functions = functions  # ordered dict name -> text
        self.objective = objective  # response name
        self.constraints = constraints  # list of dicts: name, of, upper/lower/equals, scale
        self.f_literature, self.x_published = f_literature, x_published
        self.notes, self.tags = notes, tags or []
        self.labels = labels or {}
        self.units = units or {}
        self.settings = settings
        names = [v["name"] for v in variables]
        self._code = {k: compile(pyexpr(t), k, "eval") for k, t in functions.items()}
        self._names = names

    def n(self):
        return len(self.variables)

    def m(self):
        rows = 0
        for c in self.constraints:
            rows += 2 if "equals" in c else ("upper" in c) + ("lower" in c)
        return rows

    def values(self, x):
        key = tuple(float(v) for v in x)
        cache = self.__dict__.setdefault("_cache", {})
        if key in cache:
            return cache[key]
        if len(cache) > 20000:
            cache.clear()
        cache[key] = self._values(x)
        return cache[key]

    def _values(self, x):
        env = dict(ENV)
        env.update(dict(zip(self._names, [float(v) for v in x])))
        return {k: eval(c, env) for k, c in self._code.items()}

    def f(self, x):
        return self.values(x)[self.objective]

    def normaliser(self, c, bound):
        return abs(bound) if abs(bound) > 1e-300 else c.get("scale", 1.0)

    def rows(self, x, vals=None):
        """normalised g_hat rows (<= 0 feasible)"""
        v = vals or self.values(x)
        out = []
        for c in self.constraints:
            g = v[c["of"]]
            if "equals" in c:
                b = c["equals"]; N = self.normaliser(c, b)
                out += [(g - b) / N, (b - g) / N]
            if "upper" in c:
                b = c["upper"]; N = self.normaliser(c, b)
                out.append((g - b) / N)
            if "lower" in c:
                b = c["lower"]; N = self.normaliser(c, b)
                out.append((b - g) / N)
        return np.array(out)

    def start(self):
        return np.array([v["initial"] for v in self.variables], float)

    def bounds(self):
        return [(v.get("lower"), v.get("upper")) for v in self.variables]

    def label(self, r):
        if r in self.labels:
            return self.labels[r]
        t = self.functions[r]
        if len(t) <= 60:
            return "%s = %s" % (r, t)
        return "objective function" if r == self.objective else "constraint function %s" % r

    def study(self):
        dv = []
        for v in self.variables:
            d = {"name": v["name"]}
            if v.get("lower") is not None: d["lower"] = v["lower"]
            if v.get("upper") is not None: d["upper"] = v["upper"]
            d["initial"] = v["initial"]
            if v["initial"] == 0 or v.get("range"):
                d["sizing"] = "range"
            d["label"] = v.get("label", "variable " + v["name"])
            d["unit"] = v.get("unit", "-")
            dv.append(d)
        resp = [{"name": k, "kind": "scalar", "label": self.label(k), "unit": self.units.get(k, "-")} for k in self.functions]
        cons = []
        for c in self.constraints:
            d = {"name": c["name"], "of": c["of"]}
            for key in ("lower", "upper", "equals", "scale"):
                if key in c: d[key] = c[key]
            d["label"] = self.label(c["of"]); d["unit"] = self.units.get(c["of"], "-")
            cons.append(d)
        return {
            "name": self.name,
            "description": self.description,
            "design_variables": dv,
            "load_cases": [{"name": "main"}],
            "responses": resp,
            "objective": {"minimize": self.objective, "label": self.label(self.objective), "unit": self.units.get(self.objective, "-")},
            "constraints": cons,
            "settings": self.settings or {"objacc": 0.001, "vioacc": 0.001, "max_cycles": 100},
            "simulator": {"type": "internal", "model": "functions", "functions": dict(self.functions),
                          "gradients": {"method": "forward", "step": 1e-6}},
        }

def fmt_study(d):
    """the existing files' layout: one line per variable, response, constraint"""
    L = ["{"]
    L.append('  "name": %s,' % json.dumps(d["name"]))
    L.append('  "description": %s,' % json.dumps(d["description"], ensure_ascii=False))
    L.append('  "design_variables": [')
    L.append(",\n".join("    " + json.dumps(v) for v in d["design_variables"]))
    L.append("  ],")
    L.append('  "load_cases": [{"name": "main"}],')
    L.append('  "responses": [')
    L.append(",\n".join("    " + json.dumps(v) for v in d["responses"]))
    L.append("  ],")
    L.append('  "objective": %s,' % json.dumps(d["objective"]))
    L.append('  "constraints": [')
    L.append(",\n".join("    " + json.dumps(v) for v in d["constraints"]))
    L.append("  ],")
    L.append('  "settings": %s,' % json.dumps(d["settings"]))
    L.append('  "simulator": {')
    L.append('    "type": "internal",')
    L.append('    "model": "functions",')
    L.append('    "functions": {')
    L.append(",\n".join("      %s: %s" % (json.dumps(k), json.dumps(v)) for k, v in d["simulator"]["functions"].items()))
    L.append("    },")
    L.append('    "gradients": {"method": "forward", "step": 1e-6}')
    L.append("  }")
    L.append("}")
    return "\n".join(L) + "\n"

def V(name, lower, upper, initial, **kw):
    d = {"name": name, "lower": lower, "upper": upper, "initial": initial}
    d.update(kw)
    return d

def C(name, of=None, **kw):
    d = {"name": name, "of": of or name}
    d.update(kw)
    return d
