# The engine's C files as qemu-device/meson.build lists them, so the unit
# tests and fuzz targets build what QEMU builds; an engine .c file that
# meson.build does not list stops the build here.  qrnic_crc32_le() comes
# from qrnic_crc32_clmul.c (PCLMULQDQ) when $(CC) targets x86-64, from
# qrnic_crc32_portable.c otherwise, as meson.build picks by the host's cpu.
# Sets ENGINE_SRC (file names); needs TOP.
ENGINE_MESON := $(TOP)/qemu-device/meson.build
ENGINE_CRC32 := qrnic_crc32_clmul.c qrnic_crc32_portable.c
ENGINE_SRC := $(shell sed -n "s|^ *'engine/\(qrnic_[a-z0-9_]*\.c\)',$$|\1|p" $(ENGINE_MESON))
ENGINE_SRC += qrnic_crc32_$(if $(filter x86_64-%,$(shell $(CC) -dumpmachine)),clmul,portable).c
ENGINE_UNLISTED := $(filter-out $(ENGINE_SRC) $(ENGINE_CRC32), \
                   $(notdir $(wildcard $(TOP)/qemu-device/engine/*.c)))
ifneq ($(ENGINE_UNLISTED),)
$(error qemu-device/meson.build does not build $(ENGINE_UNLISTED))
endif
