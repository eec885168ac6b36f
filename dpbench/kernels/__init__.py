"""Kernel layer: compiled passes and random streams shared by the science layer (PCG64
streams drawn inside numba, bit sets, block kernels) and the numba cache stamp. Kernels
import only the foundation layer.
"""
