#!/usr/bin/env python3
"""What the Vulkan driver says about cooperative matrices, straight from the
loader (ctypes, no vkml): the cooperative-matrix extensions each physical
device lists, VK_NV_cooperative_matrix2's features and its flexible-dimension
shapes. For the device runs of issue 32 (why a path is or is not taken).
usage: vk_coopmat_probe.py"""
import ctypes as C

vk = C.CDLL("libvulkan.so.1")
u32, ptr = C.c_uint32, C.c_void_p


class AppInfo(C.Structure):
    _fields_ = [("sType", u32), ("pNext", ptr), ("name", C.c_char_p), ("ver", u32),
                ("engine", C.c_char_p), ("ever", u32), ("api", u32)]


class InstInfo(C.Structure):
    _fields_ = [("sType", u32), ("pNext", ptr), ("flags", u32), ("app", C.POINTER(AppInfo)),
                ("nl", u32), ("layers", ptr), ("ne", u32), ("exts", ptr)]


class ExtProps(C.Structure):
    _fields_ = [("name", C.c_char * 256), ("ver", u32)]


class CM2Features(C.Structure):
    _fields_ = [("sType", u32), ("pNext", ptr)] + [(n, u32) for n in (
        "workgroupScope", "flexibleDimensions", "reductions", "conversions",
        "perElementOperations", "tensorAddressing", "blockLoads")]


class Features2(C.Structure):
    _fields_ = [("sType", u32), ("pNext", ptr), ("features", u32 * 55)]


class FlexProps(C.Structure):
    _fields_ = [("sType", u32), ("pNext", ptr), ("M", u32), ("N", u32), ("K", u32), ("A", u32),
                ("B", u32), ("C", u32), ("R", u32), ("sat", u32), ("scope", u32), ("wg", u32)]


TYPES = {0: "f16", 1: "f32", 2: "f64", 3: "s8", 4: "s16", 5: "s32", 7: "u8", 9: "u32",
         1000141000: "bf16", 1000491002: "e4m3", 1000491003: "e5m2"}
app = AppInfo(0, None, b"probe", 0, b"probe", 0, (1 << 22) | (3 << 12))
ci = InstInfo(1, None, 0, C.pointer(app), 0, None, 0, None)
inst = ptr()
r = vk.vkCreateInstance(C.byref(ci), None, C.byref(inst))
if r:
    raise SystemExit(f"vkCreateInstance: {r}")
n = u32()
vk.vkEnumeratePhysicalDevices(inst, C.byref(n), None)
pds = (ptr * n.value)()
vk.vkEnumeratePhysicalDevices(inst, C.byref(n), pds)
gipa = vk.vkGetInstanceProcAddr
gipa.restype = ptr
for pd in pds:
    pd = ptr(pd)
    m = u32()
    vk.vkEnumerateDeviceExtensionProperties(pd, None, C.byref(m), None)
    props = (ExtProps * m.value)()
    vk.vkEnumerateDeviceExtensionProperties(pd, None, C.byref(m), props)
    names = sorted(p.name.decode() for p in props)
    print("cooperative extensions:", [x for x in names if "cooperative" in x or "shader_bfloat" in x])
    if "VK_NV_cooperative_matrix2" not in names:
        continue
    cm2 = CM2Features(1000593000, None)
    f2 = Features2(1000059000, C.cast(C.pointer(cm2), ptr))
    vk.vkGetPhysicalDeviceFeatures2(pd, C.byref(f2))
    print("VK_NV_cooperative_matrix2 features:",
          {k: getattr(cm2, k) for k, _ in CM2Features._fields_[2:]})
    fn = gipa(inst, b"vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV")
    print("vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV:", bool(fn))
    if not fn:
        continue
    f = C.CFUNCTYPE(C.c_int, ptr, C.POINTER(u32), C.POINTER(FlexProps))(fn)
    k = u32()
    f(pd, C.byref(k), None)
    fp = (FlexProps * k.value)(*[FlexProps(1000593001) for _ in range(k.value)])
    f(pd, C.byref(k), fp)
    for p in fp:
        print(f"  flexible {TYPES.get(p.A, p.A)} x {TYPES.get(p.B, p.B)} + {TYPES.get(p.C, p.C)} -> "
              f"{TYPES.get(p.R, p.R)}: granules {p.M}x{p.N}x{p.K}, scope {p.scope}, "
              f"workgroup {p.wg}, saturating {p.sat}")
