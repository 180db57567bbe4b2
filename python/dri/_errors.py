"""dri.Error: every error of dri, with the DRI_ERR_* code of the C API."""


class Error(RuntimeError):
    """A dri error. ``code`` is the DRI_ERR_* value (compare with dri.ERR_TYPE
    and the other constants), ``name`` its name, str() the message."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code

    @property
    def name(self):
        from . import _dri
        return _dri._ERROR_NAMES.get(self.code, "DRI_ERR_%d" % self.code)

    def __str__(self):
        return "%s: %s" % (self.name, self.args[0])


Error.__module__ = "dri"
